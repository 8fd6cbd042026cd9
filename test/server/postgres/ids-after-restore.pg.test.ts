/**
 * Message ids are never handed out twice, even after the database is restored from a backup: a dump is
 * taken, more mail comes (its ids seen by the client), the dump is restored, and a new message's id is
 * none of the ids handed out before the restore. Ids stay what the interface says: integers, growing
 * within a session, each the client reads (at most 15 digits).
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { dumpDatabase, restoreDatabase } from '../../harness/postgres/cluster';
import { cluster, freshDatabase, startInstance } from '../../harness/postgres/database';
import { sendMail } from '../../harness/service';
import { stopServe } from '../../harness/serve-process';

const cleanup = cleanupAfterEach();

type Listed = { id: number; subject: string }[];

describe('message ids after a restore from a backup', () => {
  it('a message stored after the restore takes an id no client saw before it', async () => {
    const info = cluster();
    const { name, url } = await freshDatabase(cleanup);
    const before = await startInstance(cleanup, url);
    const box = await newSession(before.baseUrl);
    const list = async (baseUrl: string) =>
      (await call(baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages as Listed;
    await sendMail(before, { to: box.email, subject: 'one' });
    await sendMail(before, { to: box.email, subject: 'two' });
    const dump = dumpDatabase(info, name);
    await sendMail(before, { to: box.email, subject: 'three' });
    await sendMail(before, { to: box.email, subject: 'four' });
    const seen = await list(before.baseUrl);
    expect(seen.map((m) => m.subject)).toEqual(['four', 'three', 'two', 'one']);
    await stopServe(before);
    restoreDatabase(info, name, dump);
    const after = await startInstance(cleanup, url);
    // The restore brought back the session (its token works) and the mail of the dump only.
    expect((await list(after.baseUrl)).map((m) => m.subject)).toEqual(['two', 'one']);
    await sendMail(after, { to: box.email, subject: 'five' });
    const now = await list(after.baseUrl);
    const five = now.find((m) => m.subject === 'five')!;
    expect(seen.map((m) => m.id)).not.toContain(five.id);
    // Still ids as the interface and the client read them: integers, growing, at most 15 digits.
    const ids = [...seen.map((m) => m.id), five.id];
    for (const id of ids) expect(Number.isSafeInteger(id) && String(id).length <= 15, String(id)).toBe(true);
    expect(five.id).toBeGreaterThan(Math.max(...seen.map((m) => m.id)));
    // Newest first, as every listing: the new message's id is above the restored ones.
    expect(now.map((m) => m.subject)).toEqual(['five', 'two', 'one']);
    expect(now.map((m) => m.id)).toEqual([...now.map((m) => m.id)].sort((a, b) => b - a));
    // The restored listing reads each of its messages by the id it lists.
    for (const m of now)
      expect(
        (await call(after.baseUrl, '/read-mail', { query: { token: box.token, id: String(m.id) } })).json!.message
          .subject,
      ).toBe(m.subject);
  });
});
