/**
 * flood_p95_ratio (issue 27's goal): two `serve` instances on one PostgreSQL database, serve's default
 * limits. A quiet client (127.0.0.6) sends its mail at a steady pace, once alone and once while a
 * flooding client (127.0.0.5) opens connections as fast as it can and sends mail without pause through
 * both instances. Each client is a loopback address of its own, as distinct to the service as two hosts.
 *
 * A delivery's time is the quiet client's whole SMTP exchange for one message on a new connection
 * (connect, EHLO, MAIL, RCPT, DATA, to the 250 that says it is committed), as a sending MTA lives it. The
 * quiet client stays under the default per-client rates (3 messages a second < 300 a minute). Keys:
 * `flood_quiet_p95_ms` and `flood_flooded_p95_ms` (p50/p95/max beside them), their ratio
 * `flood_p95_ratio` (the goal: <= 2), and what the flood met: connections refused at once (421),
 * messages refused by the rate (451 4.7.1), messages the flood got stored, over the flood's duration.
 * A third phase floods with mail alone (8 senders an instance, within the connection share, so it meets
 * the message rate instead): `flood_mail_only_p95_ratio`.
 * Afterwards check-mail through the other instance must list every quiet message acknowledged.
 *
 * --quick: 20 quiet messages a phase instead of 60.
 */
import net from 'node:net';
import nodemailer from 'nodemailer';
import type { Figure, RunContext, Values } from './figure';
import { benchDatabase } from '../harness/postgres';
import { startServe, type RunningServe } from '../harness/serve-proc';
import { createInbox } from '../harness/service-calls';
import { round, sleep, summarize, summaryKeys } from '../harness/stats';

const QUIET = '127.0.0.6';
const FLOODER = '127.0.0.5';
/** The quiet client's pace: 3 messages a second, under the default 300 a minute. */
const QUIET_GAP_MS = 333;

/** One message from `from` over a new connection; resolves with its time (ms) or the error's reply. */
async function deliver(
  target: RunningServe,
  from: string,
  to: string,
  subject: string,
): Promise<{ ms: number } | { refused: string }> {
  const transport = nodemailer.createTransport({
    host: target.smtpHost,
    port: target.smtpPort,
    secure: false,
    ignoreTLS: true,
    localAddress: from,
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 30_000,
  });
  const t = performance.now();
  try {
    await transport.sendMail({
      from: `sender@${from.replaceAll('.', '-')}.example`,
      to,
      subject,
      text: 'x'.repeat(2000),
    });
    return { ms: performance.now() - t };
  } catch (error) {
    const e = error as { response?: string; message?: string };
    return { refused: e.response ?? e.message ?? String(error) };
  } finally {
    transport.close();
  }
}

/** The quiet client's messages, one every QUIET_GAP_MS, through the two instances in turn. */
async function quietPhase(
  targets: RunningServe[],
  to: string,
  count: number,
  label: string,
): Promise<{ ms: number[]; refused: string[]; sent: string[] }> {
  const ms: number[] = [];
  const refused: string[] = [];
  const sent: string[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const subject = `${label} ${i}`;
    pending.push(
      deliver(targets[i % targets.length]!, QUIET, to, subject).then((r) => {
        if ('ms' in r) {
          ms.push(r.ms);
          sent.push(subject);
        } else refused.push(r.refused);
      }),
    );
    await sleep(QUIET_GAP_MS);
  }
  await Promise.all(pending);
  return { ms, refused, sent };
}

interface FloodCount {
  connectRefused: number;
  rateRefused: number;
  stored: number;
  otherFailures: number;
}

/** Opens connections from FLOODER and holds them, as fast as it can, until `until()` says stop. */
async function connectionFlood(target: RunningServe, until: () => boolean, count: FloodCount): Promise<void> {
  const held: net.Socket[] = [];
  while (!until()) {
    const greeting = await new Promise<string>((resolve) => {
      const socket = net.connect({ port: target.smtpPort, host: target.smtpHost, localAddress: FLOODER });
      socket.once('data', (chunk) => resolve(chunk.toString('latin1')));
      socket.once('error', () => resolve('error'));
      socket.once('close', () => resolve('closed'));
      held.push(socket);
    });
    if (greeting.startsWith('421')) count.connectRefused++;
    if (held.length > 400) held.shift()!.destroy();
  }
  for (const s of held) s.destroy();
}

/** Sends mail from FLOODER without pause until `until()` says stop. */
async function mailFlood(target: RunningServe, to: string, until: () => boolean, count: FloodCount): Promise<void> {
  for (let i = 0; !until(); i++) {
    const r = await deliver(target, FLOODER, to, `flood ${i}`);
    if ('ms' in r) count.stored++;
    else if (/^451 4\.7\.1/.test(r.refused)) count.rateRefused++;
    else if (/^421/.test(r.refused)) count.connectRefused++;
    else count.otherFailures++;
  }
}

async function run(ctx: RunContext, databaseUrl: string): Promise<Values> {
  const count = ctx.quick ? 20 : 60;
  // serve's own limits: the point is what they do by default.
  const a = await startServe({ databaseUrl, limits: 'defaults' });
  ctx.defer(() => a.stop());
  const b = await startServe({ databaseUrl, limits: 'defaults' });
  ctx.defer(() => b.stop());
  const quietBox = await createInbox(a.baseUrl);
  const floodBox = await createInbox(b.baseUrl);
  await quietPhase([a, b], quietBox.email, 6, 'warm-up');

  const quiet = await quietPhase([a, b], quietBox.email, count, 'quiet');
  ctx.log(`quiet: ${quiet.ms.length} delivered, p95 ${summarize(quiet.ms).p95.toFixed(1)} ms`);

  /** The quiet phase again while FLOODER floods: connections and mail, or mail alone (its rate limit). */
  const floodedPhase = async (withConnections: boolean, label: string) => {
    let stop = false;
    const count_: FloodCount = { connectRefused: 0, rateRefused: 0, stored: 0, otherFailures: 0 };
    const started = performance.now();
    const flooders = [a, b].flatMap((t) => [
      ...Array.from({ length: withConnections ? 4 : 0 }, () => connectionFlood(t, () => stop, count_)),
      ...Array.from({ length: 8 }, () => mailFlood(t, floodBox.email, () => stop, count_)),
    ]);
    await sleep(2000); // the flood is at full strength before the quiet client starts
    const phase = await quietPhase([a, b], quietBox.email, count, label);
    stop = true;
    await Promise.all(flooders);
    const seconds = (performance.now() - started) / 1000;
    ctx.log(
      `${label}: ${phase.ms.length} delivered, p95 ${summarize(phase.ms).p95.toFixed(1)} ms; the flood in ${seconds.toFixed(0)} s: ${JSON.stringify(count_)}`,
    );
    return { phase, flood: count_, seconds };
  };
  const both = await floodedPhase(true, 'flooded');
  const mailOnly = await floodedPhase(false, 'mail-flooded');
  const flooded = both.phase;
  const flood = both.flood;
  const floodSeconds = both.seconds;

  const refusedQuiet = [...quiet.refused, ...flooded.refused, ...mailOnly.phase.refused];
  if (refusedQuiet.length > 0)
    throw new Error(
      `the quiet client was refused ${refusedQuiet.length} time(s): ${refusedQuiet.slice(0, 3).join(' | ')}`,
    );
  const listed = await fetch(new URL(`check-mail?token=${encodeURIComponent(quietBox.token)}`, b.baseUrl)).then(
    (r) => r.json() as Promise<{ messages: { subject: string }[] }>,
  );
  const expected = new Set([...quiet.sent, ...flooded.sent, ...mailOnly.phase.sent]);
  const seen = listed.messages.filter((m) => expected.has(m.subject)).length;
  if (seen !== expected.size)
    throw new Error(`check-mail lists ${seen} of the ${expected.size} quiet messages acknowledged`);
  await Promise.all([a.stop(), b.stop()]);

  const q = summarize(quiet.ms);
  const f = summarize(flooded.ms);
  const m = summarize(mailOnly.phase.ms);
  return {
    flood_p95_ratio: round(f.p95 / q.p95),
    flood_quiet_p95_ms: round(q.p95),
    flood_flooded_p95_ms: round(f.p95),
    ...summaryKeys('flood_quiet_ms', q),
    ...summaryKeys('flood_flooded_ms', f),
    flood_quiet_messages: count,
    flood_connections_refused: flood.connectRefused,
    flood_messages_rate_refused: flood.rateRefused,
    flood_messages_stored: flood.stored,
    flood_other_failures: flood.otherFailures,
    flood_seconds: round(floodSeconds),
    flood_mail_only_p95_ratio: round(m.p95 / q.p95),
    ...summaryKeys('flood_mail_only_ms', m),
    flood_mail_only_rate_refused: mailOnly.flood.rateRefused,
    flood_mail_only_stored: mailOnly.flood.stored,
    flood_mail_only_seconds: round(mailOnly.seconds),
  };
}

export const flood: Figure = {
  name: 'flood',
  keys: ['flood_p95_ratio'],
  async run(ctx) {
    const db = await benchDatabase(ctx);
    if (!db) return {};
    return run(ctx, db.url);
  },
};
