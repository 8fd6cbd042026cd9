import { PostgresStore } from '../../../src/server/store/postgres/postgres-store';
import type { Store } from '../../../src/server/store/store';
import { cleanupAfterEach } from '../../helpers/cleanup';
import { freshDatabase } from '../../helpers/postgres-test';
import { runStoreSuite, type StoreHarness } from './store-suite';

const cleanup = cleanupAfterEach();

runStoreSuite(
  'PostgresStore',
  async () => {
    const { url } = await freshDatabase(cleanup);
    const open = async () => {
      const store = new PostgresStore({ url, poolSize: 4 });
      await store.open();
      return store;
    };
    const twins: Store[] = [];
    const harness: StoreHarness = {
      store: await open(),
      async reopen() {
        await harness.store.close();
        harness.store = await open();
        return harness.store;
      },
      async twin() {
        const twin = await open();
        twins.push(twin);
        return twin;
      },
      async cleanup() {
        for (const twin of twins) await twin.close();
        await harness.store.close();
      },
    };
    return harness;
  },
  { shared: true },
);
