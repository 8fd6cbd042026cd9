/**
 * `serve migrate --from-data-dir DIR --database-url URL`: a data dir filled by a real serve (sessions made
 * over HTTP, mail delivered over SMTP) is moved into Postgres; a serve on the database then answers the
 * old tokens with the same messages, by the same ids; a second run adds nothing and says what it skipped,
 * and one after the data dir took more mail adds that mail and brings back none deleted from the database.
 * It refuses a data dir a running serve holds, and says so; an unreachable database is one line too.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { closedPort } from '../../harness/ports';
import { freshDatabase, inspect, startInstance } from '../../harness/postgres/database';
import { spawnCli, startServeProcess, stopServe } from '../../harness/serve-process';
import { sendMail } from '../../harness/service';

const cleanup = cleanupAfterEach();

type Listed = { id: number; subject: string }[];

async function runMigrate(dir: string, url: string) {
  const proc = spawnCli(['serve', 'migrate', '--from-data-dir', dir, '--database-url', url]);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** A data dir a real serve filled: two sessions, three messages (one with an attachment); serve stopped. */
async function filledDataDir() {
  const dir = await cleanup.tempDir('tempmail-migrate-');
  const serve = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p));
  const [one, two] = [await newSession(serve.baseUrl), await newSession(serve.baseUrl)];
  await sendMail(serve, { to: one.email, subject: 'first for one', text: 'hello one' });
  await sendMail(serve, {
    to: [one.email, two.email],
    subject: 'for both',
    attachments: [{ filename: 'a.txt', content: 'attached bytes' }],
  });
  const list = async (baseUrl: string, token: string) =>
    (await call(baseUrl, '/check-mail', { query: { token } })).json!.messages as Listed;
  const before = { one: await list(serve.baseUrl, one.token), two: await list(serve.baseUrl, two.token) };
  expect((await stopServe(serve)).code).toBe(0);
  return { dir, one, two, before, list };
}

describe('serve migrate from a data dir to Postgres', () => {
  it('moves sessions and messages: the old tokens get the same messages; a second run adds nothing', async () => {
    const { dir, one, two, before, list } = await filledDataDir();
    const { url } = await freshDatabase(cleanup);
    const first = await runMigrate(dir, url);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /: 2 session\(s\) and 3 message\(s\) added; skipped, already in the database: 0 session\(s\), 0 message\(s\)/,
    );
    const served = await startInstance(cleanup, url);
    expect(await list(served.baseUrl, one.token)).toEqual(before.one);
    expect(await list(served.baseUrl, two.token)).toEqual(before.two);
    const both = before.two[0]!;
    const read = await call(served.baseUrl, '/read-mail', { query: { token: two.token, id: String(both.id) } });
    expect(read.json!.message).toMatchObject({ subject: 'for both', attachments: [{ filename: 'a.txt' }] });
    const attachment = read.json!.message.attachments[0];
    const bytes = await call(served.baseUrl, '/attachment', {
      query: { token: two.token, id: String(both.id), attachment_id: String(attachment.id) },
    });
    expect(bytes.bytes.toString()).toBe('attached bytes');
    // New mail after the move takes an id above the moved ones.
    await sendMail(served, { to: one.email, subject: 'after the move' });
    const now = await list(served.baseUrl, one.token);
    expect(now[0]!.subject).toBe('after the move');
    expect(now[0]!.id).toBeGreaterThan(Math.max(...before.one.map((m) => m.id)));

    const db = inspect(cleanup, url);
    const count = async () =>
      (
        await db.query(
          'SELECT (SELECT count(*) FROM tempmail_sessions)::int AS s, (SELECT count(*) FROM tempmail_messages)::int AS m',
        )
      ).rows[0];
    const counted = await count();
    const again = await runMigrate(dir, url);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /: 0 session\(s\) and 0 message\(s\) added; skipped, already in the database: 2 session\(s\), 3 message\(s\)/,
    );
    expect(await count()).toEqual(counted);
  });

  it('a second run adds the mail the data dir took since and brings back nothing deleted from the database', async () => {
    const { dir, one, two, before, list } = await filledDataDir();
    const { url } = await freshDatabase(cleanup);
    expect((await runMigrate(dir, url)).code).toBe(0);
    const served = await startInstance(cleanup, url);
    const gone = before.one.find((m) => m.subject === 'first for one')!;
    expect((await call(served.baseUrl, '/delete-mail', { form: { token: one.token, id: gone.id } })).status).toBe(200);
    // The second session goes whole, as the admin API's delete-session takes it (its messages cascade).
    const db = inspect(cleanup, url);
    expect((await db.query('DELETE FROM tempmail_sessions WHERE email = $1', [two.email])).rowCount).toBe(1);
    // The data dir, serving again, takes one more message for the same address.
    const again = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p));
    // Both take mail meanwhile (a cut-over overlap): the database's id, from a later clock, is above the
    // data dir's; the data dir's must still move, and not be taken for one deleted.
    await sendMail(served, { to: one.email, subject: 'in the database' });
    await sendMail(again, { to: one.email, subject: 'late for one' });
    expect((await stopServe(again)).code).toBe(0);

    const rerun = await runMigrate(dir, url);
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toMatch(
      /: 0 session\(s\) and 1 message\(s\) added; skipped, already in the database: 1 session\(s\), 1 message\(s\); left out, expired: 0 session\(s\); not brought back, deleted from the database: 1 session\(s\), 2 message\(s\)\n$/,
    );
    const now = await list(served.baseUrl, one.token);
    expect(now.map((m) => m.subject).sort()).toEqual(['for both', 'in the database', 'late for one']);
    expect(now.map((m) => m.id)).not.toContain(gone.id);
    expect((await call(served.baseUrl, '/check-mail', { query: { token: two.token } })).status).not.toBe(200);
    // A third run, nothing new in the data dir: nothing added, nothing brought back.
    const third = await runMigrate(dir, url);
    expect(third.stdout).toMatch(
      /: 0 session\(s\) and 0 message\(s\) added; skipped, already in the database: 1 session\(s\), 2 message\(s\);/,
    );
    expect((await list(served.baseUrl, one.token)).map((m) => m.subject).sort()).toEqual([
      'for both',
      'in the database',
      'late for one',
    ]);
  });

  it('refuses a data dir a running serve holds, an unreachable database and a missing dir, each in one line', async () => {
    const dir = await cleanup.tempDir('tempmail-migrate-');
    const serve = cleanup.defer(await startServeProcess(['--data-dir', dir]), (p) => stopServe(p));
    const { url } = await freshDatabase(cleanup);
    const locked = await runMigrate(dir, url);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toBe(
      `tempmail-tui serve migrate: the data dir ${dir} is in use by a running tempmail-tui serve (pid ${serve.child.pid}); stop it first\n`,
    );
    await stopServe(serve);
    const nowhere = `postgres://someone:Secret-Pw-123@127.0.0.1:${await closedPort()}/tempmail`;
    const unreachable = await runMigrate(dir, nowhere);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^tempmail-tui serve migrate: cannot open the database postgres:\/\/someone:\*\*\*@127\.0\.0\.1:\d+\/tempmail: .+\n$/,
    );
    expect(unreachable.stderr).not.toContain('Secret-Pw-123');
    expect(unreachable.stdout).toBe('');
    const missing = await runMigrate(`${dir}/nothing-here`, url);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`tempmail-tui serve migrate: there is no data dir at ${dir}/nothing-here\n`);
  });
});
