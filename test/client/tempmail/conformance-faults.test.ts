/**
 * The real client against the real reference service, the error answers that need more than a bad
 * parameter: 413 too_large (a request body over the service's 64 KiB), 431 too_large (a request line or
 * an Authorization header over its 16 KiB header cap) and 503 storage_unavailable (a real storage failure: the messages directory is
 * turned into a plain file). Each becomes the client's typed error, and none of them carries the token.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { PostEncoding, TempMailApi } from '../../../src/client/client-types';
import type { Session } from '../../../src/model/mail-types';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { expectFailure } from '../assert';

/** The HTTP front end's default body limit (src/server/http/http-server.ts). */
const BODY_LIMIT = 64 * 1024;

let svc: TestService;
let api: TempMailApi;
let session: Session;
beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  api = createApi({ baseUrl: svc.baseUrl });
  session = await api.createSession();
});
afterAll(() => svc?.close());

/** A token-shaped secret of at least `bytes`: the real token, many times over. */
const hugeToken = (bytes = BODY_LIMIT + 1024) => session.token.repeat(Math.ceil(bytes / session.token.length));

describe('413 too_large', () => {
  for (const encoding of ['form', 'json'] as PostEncoding[]) {
    it(`a create-session body over ${BODY_LIMIT} bytes (${encoding}) is bad_request with status 413 and code too_large`, async () => {
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const e = await expectFailure(client.createSession({ prefix: 'p'.repeat(BODY_LIMIT + 1) }), 'bad_request');
      expect(e.details).toMatchObject({ status: 413, code: 'too_large' });
      expect(e.message).toBe(`Request body is larger than ${BODY_LIMIT} bytes`);
    });

    it(`a delete-mail (${encoding}) whose token is huge: the token travels in the Authorization header, 431, and no part of it in the error`, async () => {
      // The reference service takes the token in a header (Tempmail-Capabilities: bearer), so it is not in
      // the body: a huge one meets the 16 KiB header cap rather than the body limit.
      const client = createApi({ baseUrl: svc.baseUrl, postEncoding: encoding });
      const e = await expectFailure(client.deleteMail(hugeToken(), 1), 'bad_request', session.token);
      expect(e.details).toMatchObject({ status: 431, code: 'too_large' });
      // The service still works for the real token afterwards (the oversized connection was dropped).
      await expect(client.checkMail(session.token)).resolves.toEqual([]);
    });
  }

  it('a query string over the 16 KiB header cap is bad_request with status 431 and code too_large, token-free', async () => {
    const e = await expectFailure(api.checkMail(hugeToken(20 * 1024)), 'bad_request', session.token);
    expect(e.details).toMatchObject({ status: 431, code: 'too_large' });
    expect(e.message).toBe('Request Header Fields Too Large');
  });
});

describe('503 storage_unavailable', () => {
  it('read, delete and create fail as a service error with status 503, code storage_unavailable and Retry-After, token-free', async () => {
    const broken = await startTestService();
    try {
      const client = createApi({ baseUrl: broken.baseUrl, retryBaseDelayMs: 10 });
      const s = await client.createSession({ prefix: 'soon-broken' });
      await sendMail(broken, { to: s.email, subject: 'stored before', text: 'x' });
      const [m] = await waitFor(
        async () => {
          const list = await client.checkMail(s.token);
          return list.length === 1 ? list : undefined;
        },
        { message: 'the message listed' },
      );
      // A real failure, not a mock: the messages directory becomes a plain file (works as root too).
      await rm(join(broken.dataDir, 'messages'), { recursive: true, force: true });
      await writeFile(join(broken.dataDir, 'messages'), 'not a directory');

      const failures = [
        await expectFailure(client.readMail(s.token, m!.id), 'service', s.token),
        await expectFailure(client.deleteMail(s.token, m!.id), 'service', s.token),
        await expectFailure(client.createSession({ prefix: 'after-break' }), 'service', s.token),
      ];
      for (const e of failures) {
        expect(e.details).toEqual({ status: 503, code: 'storage_unavailable', retryAfterSeconds: 30 });
        // The reason (an errno, a path) is the log's, not an answer's.
        expect(e.message).toBe(
          'The service failed (storage_unavailable, HTTP 503): Mail storage is unavailable; try again later',
        );
        // The data dir is the server's business, not the user's: no path reaches the message.
        expect(e.message).not.toContain(broken.dataDir);
      }
      // No log line of the service carried the token either.
      expect(broken.logs.join('\n')).not.toContain(s.token);

      // Repaired: the create that failed left nothing behind, so its prefix is free (not 409).
      await rm(join(broken.dataDir, 'messages'));
      await mkdir(join(broken.dataDir, 'messages'), { mode: 0o700 });
      expect((await client.createSession({ prefix: 'after-break' })).email).toBe('after-break@tempmail.test');
    } finally {
      await broken.close();
    }
  });
});
