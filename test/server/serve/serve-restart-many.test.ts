/**
 * `serve` restarted on a data dir holding thousands of messages: it no longer reads every message at
 * start (an inbox is read when first used), so this checks that nothing is lost by that. Every message is
 * still listed and readable, the inbox limit still counts what is on disk (RCPT and DATA), new mail takes
 * ids after the stored ones, and sessions that expire are answered 410 and then purged with all their
 * files, though their inboxes were never opened. The built program, real HTTP and SMTP.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMailService } from '../../../src/server/service/mail-service';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { FileStore } from '../../../src/server/store/file/file-store';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';
import { openSmtp } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const INBOXES = 30;
const PER_INBOX = 80;
const LIMIT = 100;

interface Seeded {
  email: string;
  token: string;
  id: string;
  subjects: string[];
}

/** Fills `dataDir` through the store, as mail would have (the SMTP part is tested elsewhere). */
async function seed(dataDir: string) {
  const store = new FileStore(dataDir);
  await store.open();
  const base = { ...defaultServerConfig({}), dataDir, createPerMinute: 1_000_000, inboxLimit: LIMIT };
  const long = createMailService({ store, config: { ...base, lifetimeSeconds: 3600 } });
  const inboxes: Seeded[] = [];
  for (let i = 0; i < INBOXES; i++) {
    const s = await long.createSession({ clientAddress: '127.0.0.1' });
    inboxes.push({ email: s.email, token: s.token, id: '', subjects: [] });
  }
  for (let n = 0; n < PER_INBOX; n++) {
    await Promise.all(
      inboxes.map(async (box, i) => {
        const subject = `inbox ${i} message ${n}`;
        const raw = Buffer.from(
          `From: Seed <seed@example.org>\r\nTo: ${box.email}\r\nSubject: ${subject}\r\n\r\nbody of ${subject}\r\n`,
        );
        expect((await long.deliver({ raw, recipients: [box.email] })).delivered).toBe(1);
        box.subjects.push(subject);
      }),
    );
  }
  const sessions = await store.listSessions();
  for (const [i, box] of inboxes.entries()) {
    const session = sessions.find((s) => s.email === box.email)!;
    box.id = session.id;
    // Every tenth expires a few seconds from now, however long the seeding took.
    if (i % 10 === 9) await store.putSession({ ...session, expiresAt: Date.now() + 4000 });
  }
  await long.close();
  return inboxes;
}

async function listing(baseUrl: string, token: string) {
  const res = await call(baseUrl, '/check-mail', { query: { token } });
  return { status: res.status, messages: (res.json?.messages ?? []) as { id: number; subject: string }[] };
}

describe('serve restarted on thousands of stored messages', () => {
  it('lists and reads every one, keeps the inbox limit and the ids, and expires what expires', async () => {
    const dataDir = join(await cleanup.tempDir('tempmail-restart-many-'), 'data');
    const inboxes = await seed(dataDir);
    const configFile = join(dataDir, '..', 'serve.json');
    await writeFile(configFile, JSON.stringify({ purgeIntervalMs: 1000 }));
    const serve = await startServeProcess([
      '--data-dir',
      dataDir,
      '--config',
      configFile,
      '--inbox-limit',
      String(LIMIT),
    ]);
    cleanup.defer(serve, (s) => stopServe(s, 'SIGKILL'));
    const live = inboxes.filter((_, i) => i % 10 !== 9);
    const short = inboxes.filter((_, i) => i % 10 === 9);

    // Mail to an inbox nobody has listed yet: the limit counts its stored messages (RCPT and DATA).
    const full = live[0]!;
    for (let n = PER_INBOX; n < LIMIT; n++)
      await sendMail(serve, { to: full.email, subject: `inbox 0 message ${n}`, text: 'more' });
    const smtp = await openSmtp(serve);
    await smtp.command('EHLO restart.test');
    await smtp.command('MAIL FROM:<x@example.org>');
    expect(await smtp.command(`RCPT TO:<${full.email}>`)).toMatch(/^452 4\.2\.2 /);
    smtp.destroy();
    const next = live[1]!;
    await sendMail(serve, { to: next.email, subject: 'after the restart', text: 'new' });

    for (const [i, box] of live.entries()) {
      const { status, messages } = await listing(serve.baseUrl, box.token);
      expect(status).toBe(200);
      const extra =
        i === 0
          ? Array.from({ length: LIMIT - PER_INBOX }, (_, k) => `inbox 0 message ${PER_INBOX + k}`)
          : i === 1
            ? ['after the restart']
            : [];
      expect(messages.map((m) => m.subject).sort(), `inbox ${i}`).toEqual([...box.subjects, ...extra].sort());
      expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
      if (i === 1) {
        // Newest first, above every stored id (a session found at start takes the clock's ids).
        expect(messages[0]).toMatchObject({ subject: 'after the restart' });
        expect(messages[0]!.id).toBeGreaterThan(Math.max(...messages.slice(1).map((m) => m.id)));
      }
      // Read a few from each inbox: the oldest, the newest, one between.
      for (const m of [messages[0]!, messages[messages.length - 1]!, messages[Math.floor(messages.length / 2)]!]) {
        const read = await call(serve.baseUrl, '/read-mail', { query: { token: box.token, id: m.id } });
        expect(read.status).toBe(200);
        const seeded = box.subjects.includes(m.subject);
        expect(read.json!.message.body_text).toContain(
          seeded ? `body of ${m.subject}` : m.subject === 'after the restart' ? 'new' : 'more',
        );
      }
    }
    // The short-lived ones: listed whole while they live (if still alive), then 410, then purged with their files.
    for (const box of short) {
      const { status, messages } = await listing(serve.baseUrl, box.token);
      if (status === 200) expect(messages.map((m) => m.subject).sort()).toEqual([...box.subjects].sort());
      else expect([401, 410]).toContain(status);
    }
    for (const box of short) {
      await waitFor(async () => (await listing(serve.baseUrl, box.token)).status === 401, {
        timeoutMs: 20_000,
        message: 'expired session purged',
      });
      // The record goes at once; the messages, unreachable from then on, just after.
      expect(existsSync(join(dataDir, 'sessions', `${box.id}.json`))).toBe(false);
      await waitFor(() => !existsSync(join(dataDir, 'messages', box.id)), {
        timeoutMs: 10_000,
        message: 'the expired inbox removed',
      });
    }
    for (const box of live) expect(existsSync(join(dataDir, 'messages', box.id))).toBe(true);
    expect(await stopServe(serve)).toEqual({ code: 0, signal: null });
  }, 120_000);
});
