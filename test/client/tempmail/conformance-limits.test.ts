/**
 * The real client against the real reference service, continued: expiry (injected clock), the create
 * rate limit, the service zone setting, and the hostile fixtures sent over SMTP and read back.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../../src/client/client-types';
import { isTerminalSafe } from '../../../src/text/safe-text';
import { sendRaw, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { expectFailure } from '../assert';
import { HOSTILE_DIR } from '../../harness/fixtures';

let svc: TestService;
let api: TempMailApi;
beforeAll(async () => {
  svc = await startTestService();
  api = createApi({ baseUrl: svc.baseUrl });
});
afterAll(() => svc?.close());

describe('hostile mail end to end', () => {
  it('the hostile fixtures come back through the client terminal-safe, words intact', async () => {
    const dir = HOSTILE_DIR;
    const words: Record<string, string[]> = {
      '01-raw-csi-subject.eml': ['Your code', 'RED', 'inside'],
      '02-bidi-sender.eml': ['evil', 'Bank'],
      '03-qp-escape.eml': ['blinking', 'here.'],
      '04-html-script.eml': ['Welcome', 'Confirm your account'],
      '05-nul-and-del.eml': ['NUL', 'DEL', 'XYZ'],
    };
    const hostile = await api.createSession({ prefix: 'hostile' });
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.eml'))
      .sort();
    // Every known sample is there: an empty or renamed fixture dir must fail here, not pass vacuously.
    expect(files).toEqual(expect.arrayContaining(Object.keys(words)));
    for (const file of files) {
      await sendRaw(svc, hostile.email, readFileSync(join(dir, file), 'utf8').replaceAll('{TO}', hostile.email));
    }
    const list = await waitFor(
      async () => {
        const l = await api.checkMail(hostile.token);
        return l.length === files.length ? l : undefined;
      },
      { timeoutMs: 10_000, message: 'all hostile fixtures listed' },
    );
    for (const [index, file] of [...files].reverse().entries()) {
      const summary = list[index];
      if (!summary) throw new Error(`missing ${file}`);
      const m = await api.readMail(hostile.token, summary.id);
      const fields = [
        m.subject,
        m.senderName,
        m.senderEmail,
        m.bodyText ?? '',
        m.bodyHtml ?? '',
        ...m.to,
        summary.subject,
        summary.senderName,
      ];
      for (const f of fields) expect(isTerminalSafe(f), `${file}: ${JSON.stringify(f)}`).toBe(true);
      const all = fields.join('\n');
      for (const word of words[file] ?? []) expect(all, file).toContain(word);
    }
  });
});

describe('expiry and rate limit', () => {
  it('410 once the session has expired (injected clock, no sleeping)', async () => {
    let now = Date.UTC(2026, 10, 21, 10, 0, 0);
    const timed = await startTestService({ lifetimeSeconds: 60 }, { clock: () => now });
    try {
      const client = createApi({ baseUrl: timed.baseUrl });
      const s = await client.createSession({ prefix: 'short-lived' });
      expect(s.expiresAt!.toISOString()).toBe('2026-11-21T10:01:00.000Z');
      await expect(client.checkMail(s.token)).resolves.toEqual([]);
      now += 61_000;
      const e = await expectFailure(client.checkMail(s.token), 'session_expired', s.token);
      expect(e.details).toMatchObject({ status: 410, code: 'session_expired' });
      await expectFailure(client.readMail(s.token, 1), 'session_expired', s.token);
      await expectFailure(client.deleteMail(s.token, 1), 'session_expired', s.token);
    } finally {
      await timed.close();
    }
  });

  it('429 with retryAfterSeconds after createPerMinute creations', async () => {
    const limited = await startTestService({ createPerMinute: 2 });
    try {
      const client = createApi({ baseUrl: limited.baseUrl });
      await client.createSession();
      await client.createSession();
      const e = await expectFailure(client.createSession(), 'rate_limited');
      expect(e.details.status).toBe(429);
      expect(e.details.retryAfterSeconds).toBeGreaterThan(0);
      expect(e.details.retryAfterSeconds).toBeLessThanOrEqual(60);
    } finally {
      await limited.close();
    }
  });

  it('serverOffsetMinutes shifts how zone-less wire times are read', async () => {
    const shifted = createApi({ baseUrl: svc.baseUrl, serverOffsetMinutes: 120 });
    const utc = await api.createSession();
    const east = await shifted.createSession();
    const diff = utc.expiresAt!.getTime() - east.expiresAt!.getTime();
    expect(Math.abs(diff - 120 * 60_000)).toBeLessThan(5000);
  });
});
