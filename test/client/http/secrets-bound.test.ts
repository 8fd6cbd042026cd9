/**
 * The secrets one HTTP client keeps for redaction are bounded: a provider may hand out a new token at
 * every answer (Guerrilla Mail's sid_token may change at any call), and each was kept, and looked for
 * in every error, for the life of the app. The newest 1,024 are kept, a request's own renewed as it
 * starts: an error echoing the token of the request that failed is still redacted, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/client/api-error';
import { createHttpClient } from '../../../src/client/http/http-client';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv?.close());

describe('the secrets an HTTP client keeps', () => {
  it("keeps the newest 1,024, and a request's own secret is redacted from its error whatever came before", async () => {
    const http = createHttpClient({ baseUrl: srv.baseUrl, retries: 0 });
    const token = 'tok-of-this-request-7f3a9c';
    http.addSecret(token);
    for (let i = 0; i < 5_000; i++) http.addSecret(`rotated-sid-${i}`);
    expect(http.secrets()).toHaveLength(1_024);
    expect(http.secrets()).toContain('rotated-sid-4999');
    expect(http.secrets()).not.toContain('rotated-sid-3975');
    expect(http.secrets()).not.toContain(token);

    srv.handle((req, res) =>
      sendJson(res, 400, { status: 'error', error: 'bad_request', message: `no session ${req.query.get('token')}` }),
    );
    const error = await http.request('GET', 'check-mail', { searchParams: { token }, secrets: [token] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isApiError(error) && error.kind).toBe('bad_request');
    expect(String((error as Error).message)).toContain('no session [redacted]');
    expect(http.secrets()).toHaveLength(1_024);
    expect(http.secrets().at(-1)).toBe(token);
  });

  it('a service message far longer than an error shows is clipped before redaction, and a secret over the clip goes whole', async () => {
    const http = createHttpClient({ baseUrl: srv.baseUrl, retries: 0 });
    for (let i = 0; i < 1_023; i++) http.addSecret(`rotated-sid-${i}`);
    const token = 'tok-of-this-request-7f3a9c';
    // The raw clip for a 200-character message is 2,016 characters: the token runs over it.
    const messages: [string, string][] = [
      [`${'x'.repeat(32 * 1024 * 1024)} ${token}`, `${'x'.repeat(199)}…`],
      // Controls that the boundary removes, then the token across the clip: nothing of it is left.
      [`${'\u0007'.repeat(2_000)}${token}${'y'.repeat(100)}`, 'The service refused the request (HTTP 400)'],
    ];
    for (const [message, shown] of messages) {
      srv.handle((_req, res) => sendJson(res, 400, { status: 'error', error: 'bad_request', message }));
      const error = await http.request('GET', 'check-mail', { searchParams: { token }, secrets: [token] }).then(
        () => null,
        (e: unknown) => e as Error,
      );
      const text = String(error?.message);
      expect(text).toBe(shown);
      for (let n = 4; n <= token.length; n++) expect(text).not.toContain(token.slice(0, n));
    }
  }, 60_000);
});
