/**
 * downloadAttachment: the reference service's GET /attachment extension through the real client, byte for
 * byte, and what a service without that route (or with a missing attachment) turns into.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { ApiError } from '../../../src/client/api-error';
import type { TempMailApi } from '../../../src/client/client-types';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { sendJson, startFixtureServer, type FixtureServer } from '../fixture-server';

let svc: TestService;
let api: TempMailApi;
let fixture: FixtureServer;
beforeAll(async () => {
  svc = await startTestService();
  api = createApi({ baseUrl: svc.baseUrl, retries: 0 });
  fixture = await startFixtureServer();
});
afterAll(async () => {
  await svc?.close();
  await fixture?.close();
});

// Every byte value, twice: a binary attachment must come back unchanged (no text decoding on the way).
const BINARY = Buffer.from([...Array(256).keys(), ...Array(256).keys()]);

async function mailWithAttachments() {
  const session = await api.createSession();
  await sendMail(svc, {
    to: session.email,
    subject: 'With files',
    text: 'See attached.',
    attachments: [
      { filename: 'bytes.bin', content: BINARY, contentType: 'application/octet-stream' },
      { filename: 'notes.txt', content: 'plain notes\n', contentType: 'text/plain' },
    ],
  });
  const listed = await waitFor(async () => (await api.checkMail(session.token))[0], { timeoutMs: 10_000 });
  const message = await api.readMail(session.token, listed.id);
  return { session, message };
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a failure');
}

describe('downloadAttachment', () => {
  it('returns the exact bytes of each attachment listed by read-mail', async () => {
    const { session, message } = await mailWithAttachments();
    expect(message.attachments.map((a) => [a.filename, a.contentType, a.size])).toEqual([
      ['bytes.bin', 'application/octet-stream', 512],
      ['notes.txt', 'text/plain', 12],
    ]);
    const bin = await api.downloadAttachment(session.token, message.id, message.attachments[0]!.id);
    expect(Buffer.isBuffer(bin)).toBe(true);
    expect(bin.equals(BINARY)).toBe(true);
    const txt = await api.downloadAttachment(session.token, message.id, message.attachments[1]!.id);
    expect(txt.toString('utf8')).toBe('plain notes\n');
  });

  it('an unknown attachment or message is not_found with the service words, the token never in the error', async () => {
    const { session, message } = await mailWithAttachments();
    const noAttachment = await failure(api.downloadAttachment(session.token, message.id, 999));
    expect(noAttachment.kind).toBe('not_found');
    expect(noAttachment.message).toMatch(/no attachment 999/);
    const noMessage = await failure(api.downloadAttachment(session.token, 424242, 1));
    expect(noMessage.kind).toBe('not_found');
    expect(noMessage.message).toMatch(/No message with id 424242/);
    const badToken = await failure(api.downloadAttachment('not-a-token-at-all', message.id, 1));
    expect(badToken.kind).toBe('invalid_token');
    for (const e of [noAttachment, noMessage, badToken]) {
      expect(`${e.message} ${JSON.stringify(e.details)} ${e.stack}`).not.toContain(session.token);
      expect(e.message).not.toContain('not-a-token-at-all');
    }
  });

  it('a service without the route says "This service does not serve attachment bytes"', async () => {
    const client = createApi({ baseUrl: fixture.baseUrl, retries: 0 });
    const token = 'secret-token-0123456789';
    // An HTML 404 page (nginx, Express), the reference's own "No such route", a framework's JSON, a bare code.
    const cases: ((res: ServerResponse) => void)[] = [
      (res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>404 Not Found</h1></body></html>');
      },
      (res) => sendJson(res, 404, { status: 'error', error: 'not_found', message: 'No such route' }),
      (res) => sendJson(res, 404, { message: 'Route GET:/attachment not found', error: 'Not Found', statusCode: 404 }),
      (res) => sendJson(res, 404, { status: 'error', error: 'not_found' }),
    ];
    for (const answer of cases) {
      fixture.handle((_req, res) => answer(res));
      const e = await failure(client.downloadAttachment(token, 1, 1));
      expect(e.kind).toBe('not_found');
      expect(e.message).toBe('This service does not serve attachment bytes');
      expect(e.details.status).toBe(404);
      expect(`${e.message} ${e.stack}`).not.toContain(token);
    }
    expect(fixture.requests[0]?.path).toBe('/attachment');
  });

  it('a 500 stays a service error, not a missing route', async () => {
    const client = createApi({ baseUrl: fixture.baseUrl, retries: 0 });
    fixture.handle((_req, res) => sendJson(res, 500, { status: 'error', error: 'internal', message: 'disk on fire' }));
    const e = await failure(client.downloadAttachment('tok-tok-tok-tok', 1, 1));
    expect(e.kind).toBe('service');
    expect(e.message).toContain('disk on fire');
  });
});
