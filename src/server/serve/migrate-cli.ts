/**
 * `tempmail-tui serve migrate --from-data-dir DIR --database-url URL`: moves what a data dir holds (its
 * live sessions, their tokens and messages) into a Postgres database, whose schema it creates or
 * migrates first. The data dir is locked meanwhile, as serve locks it, so it refuses a dir a running serve
 * holds; it changes nothing in the dir. Safe to run again: what is in the database already is skipped and
 * counted, and a session or message deleted from the database since is not brought back (import-rows.ts,
 * which keeps a record of what each run copied in a table of this command's own). One summary
 * line on stdout; a failure is one line on stderr and exit 1.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { acquireDataDirLock, DataDirInUseError, type DataDirLock } from '../../platform/data-lock';
import { FileStore } from '../store/file/file-store';
import type { NewMessage, StoredSession, Store } from '../store/store';
import { redactDatabaseUrl, secretScrubber } from '../store/postgres/connection/database-url';

const HELP = `Usage: tempmail-tui serve migrate --from-data-dir DIR --database-url URL

Copies the live sessions of a data dir (their tokens keep working) and their messages into a PostgreSQL
database. Stop the serve that uses the data dir first. Running it again adds nothing twice, and
brings back no session or message deleted from the database since.
`;

interface Totals {
  sessionsAdded: number;
  sessionsSkipped: number;
  messagesAdded: number;
  messagesSkipped: number;
  sessionsGone: number;
  messagesGone: number;
  expired: number;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Runs the command; the exit code (0 done, 1 failed, 2 bad usage). */
export async function runMigrate(args: string[]): Promise<number> {
  let flags: { 'from-data-dir'?: string; 'database-url'?: string; help?: boolean };
  try {
    flags = parseArgs({
      args,
      options: {
        'from-data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (error) {
    return fail(`${describe(error)}\n${HELP}`, 2);
  }
  if (flags.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const dir = flags['from-data-dir'];
  const url = flags['database-url'] ?? process.env.TEMPMAIL_DATABASE_URL;
  if (!dir || !url) return fail(`give both --from-data-dir DIR and --database-url URL\n${HELP}`, 2);
  const scrub = secretScrubber(url);
  try {
    const totals = await migrate(dir, url);
    process.stdout.write(`${summary(dir, redactDatabaseUrl(url), totals)}\n`);
    return 0;
  } catch (error) {
    return fail(scrub(describe(error)), 1);
  }
}

function fail(text: string, code: number): number {
  process.stderr.write(`tempmail-tui serve migrate: ${text}\n`);
  return code;
}

function summary(dir: string, where: string, t: Totals): string {
  return (
    `migrated ${dir} to ${where}: ${t.sessionsAdded} session(s) and ${t.messagesAdded} message(s) added; ` +
    `skipped, already in the database: ${t.sessionsSkipped} session(s), ${t.messagesSkipped} message(s); ` +
    `left out, expired: ${t.expired} session(s); not brought back, deleted from the database: ${t.sessionsGone} session(s), ${t.messagesGone} message(s)`
  );
}

async function openDataDir(dir: string): Promise<{ lock: DataDirLock; store: FileStore }> {
  // Opening makes a missing dir: a mistyped path would be an empty data dir, migrated as nothing.
  if (!existsSync(dir)) throw new Error(`there is no data dir at ${dir}`);
  let lock: DataDirLock;
  try {
    lock = await acquireDataDirLock(dir);
  } catch (error) {
    if (error instanceof DataDirInUseError) {
      throw new Error(
        `the data dir ${dir} is in use by a running tempmail-tui serve (pid ${error.holder.pid}); stop it first`,
      );
    }
    throw new Error(`cannot open the data directory ${dir}: ${describe(error)}`);
  }
  const store = new FileStore(dir);
  try {
    await store.open();
  } catch (error) {
    await lock.release();
    throw new Error(`cannot open the data directory ${dir}: ${describe(error)}`);
  }
  return { lock, store };
}

async function migrate(dir: string, url: string): Promise<Totals> {
  const { lock, store } = await openDataDir(dir);
  try {
    const { PostgresStore } = await import('../store/postgres/postgres-store');
    const target = new PostgresStore({ url, poolSize: 2 });
    try {
      await target.open();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new Error(
        `cannot open the database ${redactDatabaseUrl(url)}: ${describe(error) || String(code ?? 'unknown error')}`,
      );
    }
    await target.close();
    return await copyAll(store, url);
  } finally {
    await store.close().catch(() => undefined);
    await lock.release();
  }
}

async function copyAll(source: Store, url: string): Promise<Totals> {
  const [{ createPool }, { importSession, prepareImports }] = await Promise.all([
    import('../store/postgres/connection/pool'),
    import('../store/postgres/import-rows'),
  ]);
  const pool = createPool({ url, max: 1 });
  const totals: Totals = {
    sessionsAdded: 0,
    sessionsSkipped: 0,
    messagesAdded: 0,
    messagesSkipped: 0,
    sessionsGone: 0,
    messagesGone: 0,
    expired: 0,
  };
  try {
    await prepareImports(pool);
    const now = Date.now();
    for (const session of await source.listSessions()) {
      if (session.expiresAt <= now) {
        totals.expired++;
        continue;
      }
      const done = await importSession(pool, session, await messagesOf(source, session));
      totals[done.sessionGone ? 'sessionsGone' : done.sessionAdded ? 'sessionsAdded' : 'sessionsSkipped']++;
      totals.messagesAdded += done.messagesAdded;
      totals.messagesSkipped += done.messagesSkipped;
      totals.messagesGone += done.messagesGone;
    }
  } finally {
    await pool.end().catch(() => undefined);
  }
  return totals;
}

/** Each message of `session` whole (parts, raw bytes, attachments' bytes), with its id. */
async function messagesOf(source: Store, session: StoredSession): Promise<{ id: number; message: NewMessage }[]> {
  const out: { id: number; message: NewMessage }[] = [];
  for (const meta of await source.listMessages(session.id)) {
    const full = await source.getMessage(session.id, meta.id);
    const raw = await source.rawMessage(session.id, meta.id);
    if (!full || !raw) continue; // deleted meanwhile
    const attachments = await Promise.all(
      meta.attachments.map(async (a) => ({
        filename: a.filename,
        contentType: a.contentType,
        bytes: (await source.attachmentBytes(session.id, meta.id, a.id)) ?? Buffer.alloc(0),
      })),
    );
    const { id: _id, size: _size, attachments: _list, ...rest } = full;
    out.push({ id: meta.id, message: { ...rest, raw, attachments } });
  }
  return out;
}
