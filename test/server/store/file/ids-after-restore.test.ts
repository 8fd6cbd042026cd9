/**
 * Message ids of the file store are never handed out twice, even after the data dir is restored from a
 * copy as docs/server/operations.md says (serve stopped, `tar` of the dir, later the dir moved aside and
 * the copy unpacked in its place): mail stored after the copy was taken had ids the client saw, and a
 * new message after the restore takes none of them. The PostgreSQL twin is
 * test/server/postgres/ids-after-restore.pg.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../../harness/cleanup';
import { call, newSession } from '../../../harness/http';
import { sendMail, startTestService } from '../../../harness/service';

const cleanup = cleanupAfterEach();

type Listed = { id: number; subject: string }[];

describe('file store message ids after a restore from a copy', () => {
  it('a message stored after the restore takes an id no client saw before it', async () => {
    const parent = await cleanup.tempDir('tempmail-restore-');
    const dataDir = join(parent, 'tempmail-tui');
    const start = async () => cleanup.defer(await startTestService({ dataDir }), (s) => s.close());
    const first = await start();
    const box = await newSession(first.baseUrl);
    const list = async (baseUrl: string) =>
      (await call(baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as Listed;
    await sendMail(first, { to: box.email, subject: 'one' });
    await sendMail(first, { to: box.email, subject: 'two' });
    await first.close();
    const copy = join(parent, 'copy.tgz');
    execFileSync('tar', ['-C', parent, '--numeric-owner', '-czf', copy, 'tempmail-tui']);

    const second = await start();
    await sendMail(second, { to: box.email, subject: 'three' });
    await sendMail(second, { to: box.email, subject: 'four' });
    const seen = await list(second.baseUrl);
    expect(seen.map((m) => m.subject)).toEqual(['four', 'three', 'two', 'one']);
    await second.close();
    await rename(dataDir, join(parent, 'aside'));
    execFileSync('tar', ['-C', parent, '-xzf', copy]);

    const restored = await start();
    expect((await list(restored.baseUrl)).map((m) => m.subject)).toEqual(['two', 'one']);
    await sendMail(restored, { to: box.email, subject: 'five' });
    const now = await list(restored.baseUrl);
    const five = now.find((m) => m.subject === 'five')!;
    expect(seen.map((m) => m.id)).not.toContain(five.id);
    expect(five.id).toBeGreaterThan(Math.max(...seen.map((m) => m.id)));
    expect(Number.isSafeInteger(five.id) && String(five.id).length <= 15, String(five.id)).toBe(true);
    expect(now.map((m) => m.subject)).toEqual(['five', 'two', 'one']);
    for (const m of now)
      expect(
        (await call(restored.baseUrl, '/read-mail', { query: { token: box.token, id: String(m.id) } })).json!.message
          .subject,
      ).toBe(m.subject);
  });
});
