import { createMemoryData, MemoryStore } from '../../../src/server/store/memory-store';
import { runStoreAdminSuite } from './store-admin-suite';
import { runStoreSuite, type StoreHarness } from './store-suite';

async function memoryHarness(): Promise<StoreHarness> {
  const data = createMemoryData();
  const twins: MemoryStore[] = [];
  const harness: StoreHarness = {
    store: new MemoryStore(data),
    async reopen() {
      await harness.store.close();
      harness.store = new MemoryStore(data);
      await harness.store.open();
      return harness.store;
    },
    async twin() {
      const twin = new MemoryStore(data);
      await twin.open();
      twins.push(twin);
      return twin;
    },
    async cleanup() {
      for (const twin of twins) await twin.close();
      await harness.store.close();
    },
  };
  await harness.store.open();
  return harness;
}

runStoreSuite('MemoryStore', memoryHarness, { shared: true });
runStoreAdminSuite('MemoryStore', memoryHarness, { shared: true });
