/**
 * The picker's first request, over Node's own http: the same domain list the client reads (terminal-safe,
 * checked), and for anything else (an error status, a redirect, a body that is not a list, one too big,
 * nothing listening) a rejection that tells the caller to ask the usual way. A real service and a
 * fixture server on loopback.
 */
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { quickDomains } from '../../../src/client/tempmail/quick-domains';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startTestService } from '../../harness/service';
import { sendJson, startFixtureServer } from '../fixture-server';

const cleanup = cleanupAfterEach();

describe('quick domains', () => {
  it('reads what the client reads', async () => {
    const svc = cleanup.defer(await startTestService(), (s) => s.close());
    expect(await quickDomains(svc.baseUrl)).toEqual(await createApi({ baseUrl: svc.baseUrl }).listDomains());
  });

  it('makes the names terminal-safe, as the client does', async () => {
    const fixture = cleanup.defer(await startFixtureServer(), (f) => f.close());
    const answer = { status: 'success', domains: [{ id: 1, domain: 'evil\x1b[31m.test' }], extmail_accounts: [] };
    fixture.handle((_req, res) => sendJson(res, 200, answer));
    expect(await quickDomains(fixture.baseUrl)).toEqual(await createApi({ baseUrl: fixture.baseUrl }).listDomains());
    expect(JSON.stringify(await quickDomains(fixture.baseUrl))).not.toContain('\\u001b');
  });

  it('rejects anything but a domain list, so the caller asks through the client', async () => {
    const fixture = cleanup.defer(await startFixtureServer(), (f) => f.close());
    const answers: [string, (res: import('node:http').ServerResponse) => void][] = [
      ['a 500', (res) => sendJson(res, 500, { status: 'error', error: 'internal' })],
      ['a redirect', (res) => res.writeHead(302, { location: 'http://elsewhere.invalid/domains' }).end()],
      ['an error status in a 200', (res) => sendJson(res, 200, { status: 'error', error: 'x' })],
      ['not JSON', (res) => res.writeHead(200).end('<html>')],
      [
        'too big',
        (res) =>
          res.writeHead(200).end(`{"status":"success","domains":[${'{"id":1,"domain":"a.test"},'.repeat(20_000)}]}`),
      ],
    ];
    for (const [what, answer] of answers) {
      fixture.handle((_req, res) => answer(res));
      await expect(quickDomains(fixture.baseUrl), what).rejects.toThrow();
    }
    await fixture.close();
    await expect(quickDomains(fixture.baseUrl), 'nothing listening').rejects.toThrow();
  });

  it('gives up on a service that trickles its answer (never idle, never done), so the client is asked', async () => {
    const fixture = cleanup.defer(await startFixtureServer(), (f) => f.close());
    fixture.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"status":"success","domains":[');
      const drip = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(drip));
    });
    await expect(quickDomains(fixture.baseUrl)).rejects.toThrow();
  });
});
