import { createMemoryData, MemoryStore } from '../../../src/server/store/memory-store';
import { runStoreSuite, type StoreHarness } from './store-suite';

runStoreSuite('MemoryStore', async () => {
  const data = createMemoryData();
  const harness: StoreHarness = {
    store: new MemoryStore(data),
    async reopen() {
      await harness.store.close();
      harness.store = new MemoryStore(data);
      await harness.store.open();
      return harness.store;
    },
    async cleanup() {
      await harness.store.close();
    },
  };
  await harness.store.open();
  return harness;
});
