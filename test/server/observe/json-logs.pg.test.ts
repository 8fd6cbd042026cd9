/**
 * `serve --log-format json` on PostgreSQL: the store's own lines are events with a level an alert can
 * match, not `event: "log"` at info. The push (LISTEN) connection is cut from the database side
 * (pg_terminate_backend, as a database restart or a proxy would): `push.lost` at warn, then `push.back`.
 */
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { openEvents } from '../../harness/event-stream';
import { newSession } from '../../harness/http';
import { freshDatabase, inspect } from '../../harness/postgres/database';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
type Line = { level?: string; event?: string; msg?: string };

const lines = (text: string): Line[] =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{') && l.endsWith('}'))
    .map((l) => JSON.parse(l) as Line);

describe('serve --log-format json on PostgreSQL', () => {
  it('logs the migration as storage.migrated, and a lost push connection as push.lost (warn) then push.back', async () => {
    const { url } = await freshDatabase(cleanup);
    const serve = cleanup.defer(await startServeProcess(['--database-url', url, '--log-format', 'json']), (p) =>
      stopServe(p, 'SIGKILL'),
    );
    const box = await newSession(serve.baseUrl);
    cleanup.defer(await openEvents(serve.baseUrl, { headers: { authorization: `Bearer ${box.token}` } }), (s) =>
      s.close(),
    );
    const find = (event: string) => lines(serve.stderr()).find((l) => l.event === event);
    expect(find('storage.migrated')).toMatchObject({
      level: 'info',
      msg: expect.stringMatching(/^database schema migrated to version \d+$/),
    });

    const pool = inspect(cleanup, url);
    const listener = await waitFor(
      async () =>
        (
          await pool.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
          )
        ).rows[0]?.pid as number | undefined,
      { message: 'the push connection to be listening' },
    );
    await pool.query('SELECT pg_terminate_backend($1)', [listener]);
    expect(await waitFor(() => find('push.lost'), { message: 'a push.lost line' })).toMatchObject({ level: 'warn' });
    expect(await waitFor(() => find('push.back'), { message: 'a push.back line' })).toMatchObject({ level: 'info' });
    // No store line is left as a bare `log` event.
    expect(lines(serve.stderr()).filter((l) => l.event === 'log')).toEqual([]);
  });
});
