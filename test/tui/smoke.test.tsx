import { afterEach, describe, expect, it } from 'vitest';
import { startApp, pickFirstDomain, type AppHarness } from './harness';

let h: AppHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('smoke', () => {
  it('renders the picker and creates an address', async () => {
    h = await startApp({ local: true });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor("No mail yet");
    console.log(JSON.stringify(h.screen.frame().split("\n")));
    expect(address).toMatch(/@tempmail\.test$/);
  });
});
