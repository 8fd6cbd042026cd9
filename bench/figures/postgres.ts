/**
 * checkmail_pg_p99_ms_500 and smtp_pg_two_instances_msgs_per_s: `serve --database-url` (issue 17), each
 * beside the file store measured the same way in the same figure, taken in turns; and issue 28's ratios
 * to it (checkmail_pg_over_file_p99_500, smtp_pg_10_addresses_over_file, smtp_pg_two_instances_over_file).
 *
 * The database: a throwaway PostgreSQL cluster (Debian's postgresql, bench/harness/postgres.ts) started
 * for this figure with fsync and full-page writes ON (PostgreSQL's defaults; the tests turn them off),
 * so every COMMIT, hence every SMTP 250, waits for the WAL on disk, as the file store's 250 waits for
 * its fsync. `serve` (the built program, its own process) reaches it over the cluster's unix socket.
 * Without the postgresql package the figure says so loudly and gives no keys; under CI=true it fails.
 *
 * Check-mail: one inbox of 500 messages seeded into the database, and one of 500 into a fresh data dir,
 * each by the project's own mail service on that store (bench/seed/seed-store.ts: parsed and stored as
 * after an SMTP delivery). One `serve` on each; the load of checkmail.ts (bench/harness/http-load.ts):
 * 10 keep-alive clients, GET /check-mail back to back, a sample from sending to the last byte, no
 * If-None-Match; 2,000 requests on each store, in two halves taken in turns (file, database, file,
 * database), each half after 10 untimed requests per client. Keys: `checkmail_pg_p99_ms_500` and its
 * p50/p95/max/n (`checkmail_pg_ms_500_*`), the file store's (`checkmail_file_p99_ms_500_same_run`, ...),
 * and the first over the second (`checkmail_pg_over_file_p99_500`).
 *
 * SMTP ingest: TWO `serve --database-url` instances on the same database, one address created through
 * the first (`--inbox-limit 1000000` so it never fills). The load of smtp-ingest.ts (bench/harness/
 * smtp-load.ts: the same ~3 KB message to that one address) split across both: 5 connections to each, half
 * the messages through each, at once; messages a second = all messages over the wall time from the
 * start to the last 250 of either. Every delivery to the one address takes that session's row lock, so
 * this is the contended case (deliveries to many addresses only share the WAL). Beside it: one `serve`
 * on a fresh data dir with all 10 connections, the same message (`smtp_file_msgs_per_s_same_run`; the
 * file store cannot be shared by two instances). And, as a raw figure, the spread case on the same two
 * instances: ten addresses (five created through each), each connection sending to its own
 * (`smtp_pg_two_instances_10_addresses_msgs_per_s`). 3,000 messages a round, two rounds each in turns
 * (file, database, database spread, ...) after 200 untimed ones each to the first two; afterwards
 * check-mail through the other instance must list every message acknowledged. Per-message latency (MAIL
 * FROM to the final 250) is reported too, and the CPU each message cost (user + kernel, from /proc): the
 * `serve` processes' (`smtp_file_same_run_cpu_us_per_msg`, `smtp_pg_cpu_us_per_msg_serve`, both
 * instances together) and the database's, the postmaster and its backends (`..._database`).
 *
 * Row lock: how long a delivery holds its session's row lock (bench/harness/pg-lock-hold.ts: 10
 * senders into one session of an in-process store, 1,000 deliveries a round, three rounds in turns):
 * grouped as `serve` runs it (`pg_lock_ms_per_delivery`, with `pg_lock_mean_batch`) and in batches of
 * one (`pg_lock_ms_per_delivery_alone`).
 *
 * --quick: inboxes of 100 messages and 200 requests; 300 SMTP messages in one round; 200 deliveries, one
 * round, for the row lock (the sizes are in the JSON: `checkmail_pg_messages`, `smtp_pg_messages`).
 */
import { Agent } from 'node:http';
import type { Figure, RunContext, Values } from './figure';
import { benchDatabase, type BenchDatabase } from '../harness/postgres';
import { lockHold } from '../harness/pg-lock-hold';
import { cpuSplitMs, treeCpuSplitMs } from '../harness/proc';
import { CLIENTS, get, underLoad } from '../harness/http-load';
import { startServe, type RunningServe } from '../harness/serve-proc';
import { createInbox } from '../harness/service-calls';
import { smtpLoad, type LoadResult } from '../harness/smtp-load';
import { round, summarize, summaryKeys } from '../harness/stats';
import { tempDir } from '../harness/temp';
import { orderSubject } from '../seed/inboxes';
import { notification } from '../seed/mail-samples';
import { seedDataDir, seedStore, type InboxSpec, type SeededInbox } from '../seed/seed-store';
import { PostgresStore } from '../../src/server/store/postgres/postgres-store';

const SMTP_CONNECTIONS = 10;
const LIFETIME_SECONDS = 24 * 3600;

const checkMailUrl = (serve: RunningServe, token: string) => {
  const url = new URL('check-mail', serve.baseUrl);
  url.searchParams.set('token', token);
  return url;
};

/** How many messages check-mail lists for `token` through `serve`. */
async function listed(serve: RunningServe, token: string): Promise<number> {
  const agent = new Agent();
  try {
    return (
      JSON.parse((await get(checkMailUrl(serve, token), agent, true)).body.toString('utf8')) as { messages: unknown[] }
    ).messages.length;
  } finally {
    agent.destroy();
  }
}

async function checkMail(ctx: RunContext, databaseUrl: string): Promise<Values> {
  const size = ctx.quick ? 100 : 500;
  const total = ctx.quick ? 200 : 2000;
  const inbox: InboxSpec[] = [
    { name: 'inbox', batches: [{ count: size, message: (to, i) => notification(to, orderSubject(i), i) }] },
  ];
  let t = performance.now();
  const store = new PostgresStore({ url: databaseUrl });
  await store.open();
  const pgInbox = (await seedStore(store, inbox, LIFETIME_SECONDS, ctx.log, { databaseUrl })).inbox!;
  ctx.log(`seeded ${size} messages into the database in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  const dataDir = tempDir('tempmail-bench-pg-peer-');
  const fileInbox = (await seedDataDir(dataDir, inbox, LIFETIME_SECONDS, ctx.log)).inbox!;
  ctx.log(`seeded ${size} messages into a data dir in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const serves = {
    pg: await startServe({ databaseUrl }),
    file: await startServe({ dataDir }),
  };
  for (const s of Object.values(serves)) ctx.defer(() => s.stop());
  const urls = { pg: checkMailUrl(serves.pg, pgInbox.token), file: checkMailUrl(serves.file, fileInbox.token) };
  for (const [who, token] of [
    ['pg', pgInbox.token],
    ['file', fileInbox.token],
  ] as const) {
    const n = await listed(serves[who], token);
    if (n !== size) throw new Error(`the ${size}-message inbox (${who}) lists ${n}`);
  }
  const samples = { pg: [] as number[], file: [] as number[] };
  for (const half of [Math.ceil(total / 2), Math.floor(total / 2)]) {
    for (const who of ['file', 'pg'] as const) samples[who].push(...(await underLoad(urls[who], half)));
  }
  await Promise.all(Object.values(serves).map((s) => s.stop()));
  const pg = summarize(samples.pg);
  const file = summarize(samples.file);
  ctx.log(
    `check-mail, ${size} messages, ${CLIENTS} clients: database p50 ${pg.p50.toFixed(1)} p99 ${pg.p99.toFixed(1)} ms; data dir p50 ${file.p50.toFixed(1)} p99 ${file.p99.toFixed(1)} ms`,
  );
  return {
    checkmail_pg_p99_ms_500: round(pg.p99),
    ...summaryKeys('checkmail_pg_ms_500', pg, true),
    checkmail_file_p99_ms_500_same_run: round(file.p99),
    checkmail_pg_over_file_p99_500: round(pg.p99 / file.p99),
    ...summaryKeys('checkmail_file_same_run_ms_500', file),
    checkmail_pg_messages: size,
  };
}

/**
 * `messages` deliveries split evenly across `targets` (SMTP_CONNECTIONS in all), at once; with one
 * address all go to it, with SMTP_CONNECTIONS addresses each connection has its own.
 */
async function splitLoad(
  targets: readonly RunningServe[],
  addresses: readonly string[],
  messages: number,
): Promise<LoadResult> {
  const per = SMTP_CONNECTIONS / targets.length;
  const t0 = performance.now();
  const results = await Promise.all(
    targets.map((s, i) =>
      smtpLoad({
        host: s.smtpHost,
        port: s.smtpPort,
        to: addresses.length === 1 ? addresses : addresses.slice(i * per, (i + 1) * per),
        connections: per,
        messages: Math.floor(messages / targets.length) + (i < messages % targets.length ? 1 : 0),
      }),
    ),
  );
  return { messages, ms: performance.now() - t0, latencies: results.flatMap((r) => r.latencies) };
}

/** CPU (user + kernel, ms) of `pids` and, with `db`, of the database's processes. */
function cpuNow(pids: readonly number[], db?: BenchDatabase): { serve: number; db: number } {
  const serve = pids.reduce((n, pid) => {
    const c = cpuSplitMs(pid);
    return n + c.user + c.sys;
  }, 0);
  const d = db ? treeCpuSplitMs(db.pid) : { user: 0, sys: 0 };
  return { serve, db: d.user + d.sys };
}

async function smtpIngest(ctx: RunContext, db: BenchDatabase): Promise<Values> {
  const databaseUrl = db.url;
  const messages = ctx.quick ? 300 : 3000;
  const rounds = ctx.quick ? 1 : 2;
  const limit = ['--inbox-limit', '1000000'];
  const a = await startServe({ databaseUrl, args: limit });
  ctx.defer(() => a.stop());
  const b = await startServe({ databaseUrl, args: limit });
  ctx.defer(() => b.stop());
  const file = await startServe({ dataDir: tempDir('tempmail-bench-pg-smtp-'), args: limit });
  ctx.defer(() => file.stop());
  const pgAddress = await createInbox(a.baseUrl);
  const fileAddress = await createInbox(file.baseUrl);
  // The spread case: one address per connection, half created through each instance.
  const spread: SeededInbox[] = [];
  for (let i = 0; i < SMTP_CONNECTIONS; i++) spread.push(await createInbox((i % 2 === 0 ? a : b).baseUrl));
  const load = {
    file: (n: number) => splitLoad([file], [fileAddress.email], n),
    pg: (n: number) => splitLoad([a, b], [pgAddress.email], n),
    pgSpread: (n: number) =>
      splitLoad(
        [a, b],
        spread.map((s) => s.email),
        n,
      ),
  };
  await load.file(200);
  await load.pg(200);
  const fresh = () => ({ n: 0, ms: 0, lat: [] as number[], serveCpu: 0, dbCpu: 0 });
  const totals = { file: fresh(), pg: fresh(), pgSpread: fresh() };
  const measured = {
    file: () => cpuNow([file.pid]),
    pg: () => cpuNow([a.pid, b.pid], db),
    pgSpread: () => cpuNow([a.pid, b.pid], db),
  };
  const label = {
    file: 'one instance on a data dir',
    pg: 'two instances on the database',
    pgSpread: `two instances on the database, ${SMTP_CONNECTIONS} addresses`,
  };
  for (let r = 0; r < rounds; r++) {
    for (const who of ['file', 'pg', 'pgSpread'] as const) {
      const cpu0 = measured[who]();
      const res = await load[who](messages);
      const cpu1 = measured[who]();
      totals[who].serveCpu += cpu1.serve - cpu0.serve;
      totals[who].dbCpu += cpu1.db - cpu0.db;
      totals[who].n += res.messages;
      totals[who].ms += res.ms;
      totals[who].lat.push(...res.latencies);
      ctx.log(
        `smtp ${label[who]}: ${res.messages} messages in ${(res.ms / 1000).toFixed(1)} s (${((res.messages / res.ms) * 1000).toFixed(0)}/s)`,
      );
    }
  }
  // Nothing acknowledged may be missing, and the second instance reads what the first's sessions got.
  const expected = 200 + totals.pg.n;
  const seen = await listed(b, pgAddress.token);
  if (seen !== expected) throw new Error(`the database inbox lists ${seen} messages, ${expected} were acknowledged`);
  let spreadSeen = 0;
  for (const [i, s] of spread.entries()) spreadSeen += await listed(i % 2 === 0 ? b : a, s.token);
  if (spreadSeen !== totals.pgSpread.n)
    throw new Error(
      `the ${SMTP_CONNECTIONS} database inboxes list ${spreadSeen} messages, ${totals.pgSpread.n} were acknowledged`,
    );
  await Promise.all([a, b, file].map((s) => s.stop()));
  const rate = (who: keyof typeof totals) => (totals[who].n / totals[who].ms) * 1000;
  // CPU per message, µs: the serve processes (both, on the database) and the database's own processes.
  const cpu = (who: keyof typeof totals, part: 'serveCpu' | 'dbCpu') =>
    Math.round((totals[who][part] / totals[who].n) * 1000);
  ctx.log(
    `smtp CPU per message (user + kernel): data dir serve ${cpu('file', 'serveCpu')} µs; ` +
      `database, one address: serve ${cpu('pg', 'serveCpu')} + database ${cpu('pg', 'dbCpu')} µs; ` +
      `ten addresses: serve ${cpu('pgSpread', 'serveCpu')} + database ${cpu('pgSpread', 'dbCpu')} µs`,
  );
  return {
    smtp_pg_two_instances_msgs_per_s: round(rate('pg')),
    smtp_file_msgs_per_s_same_run: round(rate('file')),
    smtp_pg_two_instances_over_file: round(rate('pg') / rate('file')),
    smtp_pg_two_instances_10_addresses_msgs_per_s: round(rate('pgSpread')),
    smtp_pg_10_addresses_over_file: round(rate('pgSpread') / rate('file')),
    smtp_file_same_run_cpu_us_per_msg: cpu('file', 'serveCpu'),
    smtp_pg_cpu_us_per_msg_serve: cpu('pg', 'serveCpu'),
    smtp_pg_cpu_us_per_msg_database: cpu('pg', 'dbCpu'),
    smtp_pg_10_addresses_cpu_us_per_msg_serve: cpu('pgSpread', 'serveCpu'),
    smtp_pg_10_addresses_cpu_us_per_msg_database: cpu('pgSpread', 'dbCpu'),
    smtp_pg_messages: totals.pg.n,
    ...summaryKeys('smtp_pg_two_instances_ms', summarize(totals.pg.lat)),
    ...summaryKeys('smtp_pg_two_instances_10_addresses_ms', summarize(totals.pgSpread.lat)),
    ...summaryKeys('smtp_file_same_run_ms', summarize(totals.file.lat)),
  };
}

/**
 * The row lock a delivery holds (bench/harness/pg-lock-hold.ts), grouped as `serve` runs the store and
 * in batches of one, in turns: 10 senders into one session, 1,000 deliveries a round (200 with --quick).
 */
async function lockHolds(ctx: RunContext, url: string): Promise<Values> {
  const deliveries = ctx.quick ? 200 : 1000;
  const sum = { grouped: { ms: 0, batch: 0, rate: 0 }, alone: { ms: 0, batch: 0, rate: 0 } };
  const rounds = ctx.quick ? 1 : 3;
  for (let r = 0; r < rounds; r++) {
    for (const who of ['alone', 'grouped'] as const) {
      const h = await lockHold(url, { deliveries, senders: SMTP_CONNECTIONS, grouped: who === 'grouped' });
      sum[who].ms += h.perDeliveryMs / rounds;
      sum[who].batch += h.meanBatch / rounds;
      sum[who].rate += h.perSecond / rounds;
    }
  }
  ctx.log(
    `row lock held per delivery, ${SMTP_CONNECTIONS} senders into one session: grouped ${sum.grouped.ms.toFixed(2)} ms ` +
      `(batches of ${sum.grouped.batch.toFixed(1)}, ${sum.grouped.rate.toFixed(0)}/s), alone ${sum.alone.ms.toFixed(2)} ms (${sum.alone.rate.toFixed(0)}/s)`,
  );
  return {
    pg_lock_ms_per_delivery: round(sum.grouped.ms),
    pg_lock_ms_per_delivery_alone: round(sum.alone.ms),
    pg_lock_mean_batch: round(sum.grouped.batch),
  };
}

export const postgres: Figure = {
  name: 'pg',
  keys: [
    'checkmail_pg_p99_ms_500',
    'smtp_pg_two_instances_msgs_per_s',
    'checkmail_pg_over_file_p99_500',
    'smtp_pg_10_addresses_over_file',
    'smtp_pg_two_instances_over_file',
  ],
  async run(ctx) {
    const db = await benchDatabase(ctx);
    if (!db) return {};
    return { ...(await checkMail(ctx, db.url)), ...(await smtpIngest(ctx, db)), ...(await lockHolds(ctx, db.url)) };
  },
};
