/** expiredSessionsPurge (assemble.ts): the purge the timer runs, its log lines, and no purge on top of a running one. */
import { describe, expect, it } from 'vitest';
import { expiredSessionsPurge } from '../../../src/server/serve/assemble';
import { createLogger } from '../../../src/server/observe/log';
import { serviceMaker } from '../service-fixture';

const makeService = serviceMaker();

/** A JSON logger whose events are kept as objects. */
function keptLog() {
  const events: Record<string, unknown>[] = [];
  const log = createLogger({ format: 'json', write: (line) => events.push(JSON.parse(line)) });
  return { log, events };
}

describe('expiredSessionsPurge', () => {
  it('purges expired sessions and says how many went', async () => {
    const f = await makeService({ lifetimeSeconds: 60 });
    await f.service.createSession({ clientAddress: '127.0.0.1', prefix: 'gone-soon' });
    await f.service.createSession({ clientAddress: '127.0.0.1', prefix: 'gone-too' });
    f.advance(120_000);
    const { log, events } = keptLog();
    await expiredSessionsPurge(f.service, log)();
    expect(events).toMatchObject([{ event: 'sessions.purged', level: 'info', sessions: 2 }]);
    expect(await f.store.countSessions()).toBe(0);
  });

  it('does not start a purge while one is running, and purges again once it is done', async () => {
    const f = await makeService({ lifetimeSeconds: 60 });
    let purges = 0;
    const counted = {
      purgeExpired: () => {
        purges++;
        return f.service.purgeExpired();
      },
    };
    const purge = expiredSessionsPurge(counted, keptLog().log);
    await Promise.all([purge(), purge(), purge()]);
    expect(purges).toBe(1);
    await purge();
    expect(purges).toBe(2);
  });

  it('logs a failed purge as an error with its reason, and purges again next time', async () => {
    let fail = true;
    const failing = { purgeExpired: async () => (fail ? Promise.reject(new Error('disk gone')) : 0) };
    const { log, events } = keptLog();
    const purge = expiredSessionsPurge(failing, log);
    await purge();
    expect(events).toMatchObject([{ event: 'sessions.purge_failed', level: 'error', reason: 'disk gone' }]);
    fail = false;
    await purge();
    expect(events).toHaveLength(1);
  });
});
