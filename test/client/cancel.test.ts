/**
 * A client's signal (ApiOptions.signal: its caller is done) ends what the client has in flight at once,
 * with the ApiError of a cancelled request: a request the service never answers, got's wait before a
 * retry, a pace's wait, and an event stream still waiting to hear whether the service offers one. Each
 * would otherwise hold a finished command's process open (issue 37.1). The bounds below are failure
 * conditions far under what each would take uncancelled (10-60 s), not measures of speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { isApiError } from '../../src/client/api-error';
import { createPacer } from '../../src/client/pacing/pacer';
import { sendJson, startFixtureServer, type FixtureServer } from './fixture-server';

const TOKEN = 'tok_cancel_0123456789abcdef';
// Far beyond the bound: a call still pending this long after its abort was not cancelled.
const SLOW_MS = 60_000;
const BOUND_MS = 5_000;

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv.close());

/** Aborts `controller` once the server has seen `requests` requests, then awaits `call`'s failure. */
async function cancelledAfter(call: Promise<unknown>, controller: AbortController, requests: number): Promise<unknown> {
  const outcome = call.then(
    () => new Error('the call succeeded'),
    (error: unknown) => error,
  );
  const started = Date.now();
  while (srv.requests.length < requests) {
    if (Date.now() - started > BOUND_MS)
      throw new Error(`the server saw ${srv.requests.length} of ${requests} requests`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  controller.abort();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(new Error(`still pending ${BOUND_MS} ms after the abort`)), BOUND_MS);
  });
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}

function expectCancelled(error: unknown): void {
  expect(isApiError(error) ? `${error.kind}: ${error.message}` : String(error)).toBe(
    'network: The request was cancelled',
  );
}

describe("a client's signal", () => {
  it('ends a request the service never answers', async () => {
    srv.handle(() => undefined);
    const controller = new AbortController();
    const api = createApi({ baseUrl: srv.baseUrl, timeoutMs: SLOW_MS, signal: controller.signal });
    expectCancelled(await cancelledAfter(api.checkMail(TOKEN), controller, 1));
  });

  it("ends got's wait before retrying a failed GET", async () => {
    srv.handle((_req, res) => sendJson(res, 503, { status: 'error', error: 'busy' }));
    const controller = new AbortController();
    const api = createApi({ baseUrl: srv.baseUrl, retries: 3, retryBaseDelayMs: SLOW_MS, signal: controller.signal });
    expectCancelled(await cancelledAfter(api.checkMail(TOKEN), controller, 1));
    expect(srv.requests).toHaveLength(1);
  });

  it("ends a pace's wait, and the call never starts", async () => {
    srv.handle((_req, res) => sendJson(res, 200, { status: 'success', messages: [] }));
    const pacer = createPacer(1);
    pacer.holdUntil(Date.now() + SLOW_MS);
    const controller = new AbortController();
    const api = createApi({ baseUrl: srv.baseUrl, pacer, signal: controller.signal });
    const call = api.checkMail(TOKEN);
    controller.abort();
    expectCancelled(await cancelledAfter(call, controller, 0));
    expect(srv.requests).toHaveLength(0);
  });

  it('ends an event stream waiting to hear whether the service offers one', async () => {
    // No answer has said what the service offers yet: the stream waits for one (15 s) before asking.
    srv.handle(() => undefined);
    const controller = new AbortController();
    const api = createApi({ baseUrl: srv.baseUrl, signal: controller.signal });
    const opening = api.openEvents!(TOKEN);
    controller.abort();
    const error = await cancelledAfter(opening, controller, 0);
    expect(isApiError(error) && error.kind).toBe('network');
    expect(srv.requests).toHaveLength(0);
  });
});
