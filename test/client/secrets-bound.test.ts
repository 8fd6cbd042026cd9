/**
 * The secrets one HTTP client keeps for redaction are bounded: a provider may hand out a new token at
 * every answer (Guerrilla Mail's sid_token may change at any call), and each was kept, and looked for
 * in every error, for the life of the app. The newest 1,024 are kept, a request's own renewed as it
 * starts: an error echoing the token of the request that failed is still redacted, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../src/client/api-error';
import { createHttpClient } from '../../src/client/http-client';
import { sendJson, startFixtureServer, type FixtureServer } from './fixture-server';

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv?.close());

describe('the secrets an HTTP client keeps', () => {
  it('keeps the newest 1,024, and a request\'s own secret is redacted from its error whatever came before', async () => {
    const http = createHttpClient({ baseUrl: srv.baseUrl, retries: 0 });
    const token = 'tok-of-this-request-7f3a9c';
    http.addSecret(token);
    for (let i = 0; i < 5_000; i++) http.addSecret(`rotated-sid-${i}`);
    expect(http.secrets()).toHaveLength(1_024);
    expect(http.secrets()).toContain('rotated-sid-4999');
    expect(http.secrets()).not.toContain('rotated-sid-3975');
    expect(http.secrets()).not.toContain(token);

    srv.handle((req, res) => sendJson(res, 400, { status: 'error', error: 'bad_request', message: `no session ${req.query.get('token')}` }));
    const error = await http.request('GET', 'check-mail', { searchParams: { token }, secrets: [token] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isApiError(error) && error.kind).toBe('bad_request');
    expect(String((error as Error).message)).toContain('no session [redacted]');
    expect(http.secrets()).toHaveLength(1_024);
    expect(http.secrets().at(-1)).toBe(token);
  });
});
