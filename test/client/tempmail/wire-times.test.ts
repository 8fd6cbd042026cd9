/**
 * Times as services send them: the wire format, and epoch seconds or milliseconds as numbers. A number
 * past what a Date can hold (1e20) makes an Invalid Date, which must never enter our types: it would
 * show as "NaN" and throw on the way into the saved-session file (toISOString).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { expectFailure } from '../assert';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let srv: FixtureServer;
beforeAll(async () => {
  srv = await startFixtureServer();
});
afterAll(() => srv?.close());

/** The service answers create-session with this expiry and lists one message received at `received`. */
function answer(expires: unknown, received: unknown): void {
  srv.handle((req, res) => {
    if (req.path === '/create-session')
      return sendJson(res, 200, { status: 'success', email: 'a@b.test', token: 'tok-times-1', expires_at: expires });
    sendJson(res, 200, {
      status: 'success',
      messages: [{ id: 1, sender_name: 'S', sender_email: 's@x.test', subject: 'hi', received_at: received }],
    });
  });
}

describe('epoch times', () => {
  it('takes seconds and milliseconds', async () => {
    answer(1_800_000_000, 1_800_000_000_000);
    const api = createApi({ baseUrl: srv.baseUrl });
    expect((await api.createSession()).expiresAt!.toISOString()).toBe('2027-01-15T08:00:00.000Z');
    expect((await api.checkMail('tok-times-1'))[0]!.receivedAt?.toISOString()).toBe('2027-01-15T08:00:00.000Z');
  });

  it.each([1e20, 1e300, 8.64e15 + 1])(
    'refuses %d, which no Date can hold: no expiry is a bad response, no receive time is null',
    async (n) => {
      answer(n, n);
      const api = createApi({ baseUrl: srv.baseUrl });
      const e = await expectFailure(api.createSession(), 'bad_response');
      expect(e.message).toContain('no valid expiry time');
      const [m] = await api.checkMail('tok-times-1');
      expect(m!.receivedAt).toBeNull();
    },
  );
});
