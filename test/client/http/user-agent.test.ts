/**
 * Every request names the program, its version and where it lives (issue 24, point 7: it was the bare
 * word "tempmail-tui", which tells a provider's operator neither). Over real HTTP, for each provider.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProvider } from '../../../src/client/providers';
import { PROJECT_HOME } from '../../../src/client/http/user-agent';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let server: FixtureServer;
const agents: string[] = [];
beforeAll(async () => {
  server = await startFixtureServer((_req, res, raw) => {
    agents.push(String(raw.headers['user-agent'] ?? ''));
    sendJson(res, 200, { domains: [], extmail_accounts: [] });
  });
});
afterAll(() => server.close());

it('says tempmail-tui/<version> (+<home>) on every provider', async () => {
  for (const id of ['tempmail', 'mailtm'] as const)
    await createProvider(id, { baseUrl: server.baseUrl })
      .listDomains()
      .catch(() => undefined);
  expect(agents.length).toBeGreaterThanOrEqual(2);
  for (const agent of agents) expect(agent).toBe(`tempmail-tui/0.0.0-test (+${PROJECT_HOME})`);
});
