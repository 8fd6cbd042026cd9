/**
 * serve_churn_rss_over_empty_{45,150,300}s: `serve` under churn, its RSS over its own empty RSS.
 *
 * The load a public instance lives with (issue 38): a new session every 5 s with a 30 s lifetime, ~110
 * messages a second into the newest over two SMTP connections (a full inbox is met with 452 and a new
 * connection, as a sender would), the newest inbox polled 50 times a second. VmRSS is read at 45 s,
 * 150 s and 300 s (quick: 5, 10 and 15 s), then once more 20 s after the load stopped (quick: 5 s):
 * `serve_churn_rss_over_empty_after` tells whether it goes back down or at least stops rising. The
 * empty RSS is the same build's at its `HTTP ...` line. On a data dir, and on Postgres when the bench
 * has a database.
 */
import type { Figure, RunContext, Values } from './figure';
import { benchDatabase } from '../harness/postgres';
import { rssMb } from '../harness/proc';
import { createInbox } from '../harness/service-calls';
import { dataPayload, SmtpConnection } from '../harness/smtp-client';
import { startServe, type RunningServe } from '../harness/serve-proc';
import { round, sleep } from '../harness/stats';
import { tempDir } from '../harness/temp';
import { notification } from '../seed/mail-samples';

const RATE = 110;
const POLLS_PER_S = 50;

/** The churn load on `serve` until `stop()`; counts what it did. */
function churn(serve: RunningServe) {
  let stopped = false;
  let newest: { email: string; token: string } | undefined;
  let sent = 0;
  const creator = async () => {
    while (!stopped) {
      newest = await createInbox(serve.baseUrl).catch(() => newest);
      for (let i = 0; i < 50 && !stopped; i++) await sleep(100);
    }
  };
  const sender = async () => {
    let smtp = await SmtpConnection.open(serve.smtpHost, serve.smtpPort);
    while (!stopped) {
      const start = performance.now();
      if (newest) {
        try {
          await smtp.send('churn@example.org', newest.email, dataPayload(notification(newest.email, 'churn')));
          sent++;
        } catch {
          await smtp.close().catch(() => {});
          smtp = await SmtpConnection.open(serve.smtpHost, serve.smtpPort);
        }
      }
      const wait = 2_000 / RATE - (performance.now() - start);
      if (wait > 0) await sleep(wait);
    }
    await smtp.close();
  };
  const poller = async () => {
    while (!stopped) {
      if (newest)
        await fetch(new URL(`check-mail?token=${newest.token}`, serve.baseUrl)).then(
          (r) => r.arrayBuffer(),
          () => undefined,
        );
      await sleep(1_000 / POLLS_PER_S);
    }
  };
  const work = Promise.all([creator(), sender(), sender(), poller()]);
  return {
    sent: () => sent,
    stop: async () => {
      stopped = true;
      await work;
    },
  };
}

async function churnRun(
  ctx: RunContext,
  label: string,
  storage: { dataDir?: string; databaseUrl?: string },
): Promise<Values> {
  // A quick run reads at 5, 10 and 15 s under the full run's key names (the bench's quick keys only
  // prove the figure still runs).
  const marks = [45, 150, 300];
  const scale = ctx.quick ? 1 / 10 : 1;
  const serve = await startServe({
    ...storage,
    rssAtListen: true,
    args: ['--lifetime-seconds', '30', '--create-per-minute', '100000'],
  });
  ctx.defer(() => serve.stop());
  const empty = serve.rssAtListenMb!;
  const load = churn(serve);
  const t0 = performance.now();
  const out: Values = { [`serve_churn${label}_rss_mb_empty`]: round(empty) };
  for (const mark of marks) {
    await sleep(t0 + mark * scale * 1_000 - performance.now());
    const rss = rssMb(serve.pid);
    out[`serve_churn${label}_rss_over_empty_${mark}s`] = round(rss / empty);
    ctx.log(
      `serve churn${label}: ${round(mark * scale)} s, RSS ${rss.toFixed(1)} MB (empty ${empty.toFixed(1)}), ${load.sent()} messages`,
    );
  }
  await load.stop();
  await sleep((ctx.quick ? 5 : 20) * 1_000);
  out[`serve_churn${label}_rss_over_empty_after`] = round(rssMb(serve.pid) / empty);
  out[`serve_churn${label}_messages`] = load.sent();
  await serve.stop();
  return out;
}

export const serveChurn: Figure = {
  name: 'churn',
  keys: ['serve_churn_rss_over_empty_45s', 'serve_churn_rss_over_empty_150s', 'serve_churn_rss_over_empty_300s'],
  async run(ctx) {
    const values = await churnRun(ctx, '', { dataDir: tempDir('tempmail-bench-churn-') });
    const db = await benchDatabase(ctx);
    if (!db) return values;
    return { ...values, ...(await churnRun(ctx, '_pg', { databaseUrl: db.url })) };
  },
};
