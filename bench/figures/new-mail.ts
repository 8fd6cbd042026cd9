/**
 * new_mail_p95_ms_over_interval and new_mail_local_p95_ms: from a sender's SMTP 250 to the subject on
 * the user's screen.
 *
 * One sample: a ~3 KB message with a unique subject goes over one SMTP connection; its time starts when
 * the sender reads the final 250 and ends at the end mark of the first frame showing that subject.
 * Messages go one after another, 200-1000 ms (random) apart, without waiting to be seen, so they land
 * at every point of the app's poll cycle. After every 10 the sender waits until all are seen, presses
 * `g` (the selection follows its message down as mail arrives; `g` brings it and the newest back to the
 * top), then waits a random part of one poll interval before going on. The app runs in a 100x30 pty.
 * - remote: the app polls a separate `serve` every 1 s (`--poll-interval 1`, the least it allows).
 *   Polling's own wait is taken away sample by sample: `serve` logs each check-mail request with its
 *   time and duration, and a sample counts from the start of the poll that fetched the message (the
 *   first request begun after the 250) to the frame. The figure is the p95 of that: request, answer,
 *   parsing and drawing. (p95 of the whole latency minus the interval, the other reading of "minus
 *   the poll interval", is near zero by construction, since arrivals fall evenly across the interval;
 *   it is under `new_mail_remote_p95_minus_interval_ms`, the whole latency under new_mail_remote_ms_*.)
 * - local: no service configured, so the app runs the service in-process (its own SMTP port, read off
 *   the screen), with the default 5 s interval; the figure is the p95 itself.
 * 100 samples each (5 with --quick); p50/p95/max under other keys.
 */
import type { Figure } from './figure';
import { openInboxApp } from '../harness/inbox-app';
import { PtyApp } from '../harness/pty-app';
import { startServe, type Span } from '../harness/serve-proc';
import { createInbox } from '../harness/service-calls';
import { dataPayload, SmtpConnection } from '../harness/smtp-client';
import { randomBetween, round, sleep, summarize, summaryKeys } from '../harness/stats';
import { tempDir } from '../harness/temp';
import { notification } from '../seed/mail-samples';

const COLS = 100;
const ROWS = 30;

interface Arrival {
  /** performance.now() when the sender read the final 250. */
  acked: number;
  /** performance.now() of the end mark of the first frame showing the subject. */
  shown: number;
}

/** Sends `n` messages to `to`; for each, when its 250 came and when a frame first showed it. */
async function arrivals(
  app: PtyApp,
  smtp: SmtpConnection,
  to: string,
  n: number,
  intervalMs: number,
): Promise<Arrival[]> {
  const seen: Promise<Arrival>[] = [];
  let newest = '';
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % 10 === 0) {
      await Promise.all(seen);
      if (!(await app.selection()).includes(newest)) {
        app.write('g');
        await app.nextFrame((f) => f.selected.includes(newest), 10_000, `the selection on ${newest} after g`);
      }
      await sleep(randomBetween(0, intervalMs));
    }
    await sleep(randomBetween(200, 1000));
    const subject = `Arrival ${String(i).padStart(3, '0')}-${randomBetween(100000, 999999)}`;
    newest = subject;
    // Watched before it is sent: the frame that shows it cannot come and go unseen.
    const frame = app.nextFrame((f) => f.text.includes(subject), 60_000, `"${subject}" on screen`);
    const sent = smtp.send('sender@example.org', to, dataPayload(notification(to, subject, i)));
    const latency = Promise.all([sent, frame]).then(([acked, f]) => ({ acked, shown: f.at }));
    latency.catch(() => undefined); // awaited below; a failure must not end the process before that
    seen.push(latency);
    await sent;
  }
  return Promise.all(seen);
}

/**
 * How long after the poll that fetched it each arrival was on screen: from the start of the first
 * check-mail request that began after its 250 (the store had it by then), or, when a frame showed it
 * before that one began, of the request that was under way at the 250 and read it just in time.
 */
function afterPoll(list: readonly Arrival[], requests: readonly Span[]): number[] {
  const epoch = (t: number) => performance.timeOrigin + t;
  return list.map(({ acked, shown }) => {
    const next = requests.find((r) => r.start > epoch(acked));
    const poll = next && next.start < epoch(shown) ? next : requests.filter((r) => r.start <= epoch(acked)).at(-1);
    if (!poll) throw new Error('serve logged no check-mail request around an arrival');
    return epoch(shown) - poll.start;
  });
}

async function remote(
  samples: number,
  defer: (fn: () => unknown) => void,
): Promise<{ arrivals: Arrival[]; requests: readonly Span[] }> {
  const serve = await startServe({ dataDir: tempDir('tempmail-bench-newmail-'), args: ['--inbox-limit', '100000'] });
  defer(() => serve.stop());
  const inbox = await createInbox(serve.baseUrl);
  const app = await openInboxApp({
    baseUrl: serve.baseUrl,
    inbox,
    args: ['--poll-interval', '1'],
    cols: COLS,
    rows: ROWS,
    loaded: (s) => s.includes('No mail yet'),
  });
  defer(() => app.stop());
  const smtp = await SmtpConnection.open(serve.smtpHost, serve.smtpPort);
  defer(() => smtp.close());
  const list = await arrivals(app, smtp, inbox.email, samples, 1000);
  await sleep(200); // the log line of the last poll may still be on its way
  return { arrivals: list, requests: serve.checkMailRequests() };
}

async function local(samples: number, defer: (fn: () => unknown) => void): Promise<Arrival[]> {
  const app = new PtyApp({ env: { TEMPMAIL_TUI_HOME: tempDir('tempmail-bench-local-') }, cols: COLS, rows: ROWS });
  defer(() => app.stop());
  const picker = await app.until(
    (s) => /Random address on \S+/.test(s) && /via SMTP [\d.]+:\d+/.test(s),
    60_000,
    'the picker with the local SMTP target',
  );
  const [, host, port] = /via SMTP ([\d.]+):(\d+)/.exec(picker)!;
  await app.settle();
  app.write('\r');
  const inbox = await app.until((s) => s.includes('No mail yet for'), 60_000, 'the new empty inbox');
  const address = /No mail yet for (\S+?)\.?$/m.exec(inbox)?.[1];
  if (!address) throw new Error(`no address on screen:\n${inbox}`);
  const smtp = await SmtpConnection.open(host!, Number(port));
  defer(() => smtp.close());
  return arrivals(app, smtp, address, samples, 5000);
}

export const newMail: Figure = {
  name: 'newmail',
  keys: ['new_mail_p95_ms_over_interval', 'new_mail_local_p95_ms'],
  async run(ctx) {
    const samples = ctx.quick ? 5 : 100;
    const latency = (list: readonly Arrival[]) => summarize(list.map((a) => a.shown - a.acked));
    const far = await remote(samples, ctx.defer);
    const r = latency(far.arrivals);
    const over = summarize(afterPoll(far.arrivals, far.requests));
    ctx.log(
      `new mail, remote 1 s polls: p50 ${r.p50.toFixed(0)} p95 ${r.p95.toFixed(0)} max ${r.max.toFixed(0)} ms; after its poll p95 ${over.p95.toFixed(0)} ms`,
    );
    const l = latency(await local(samples, ctx.defer));
    ctx.log(`new mail, local service: p50 ${l.p50.toFixed(0)} p95 ${l.p95.toFixed(0)} max ${l.max.toFixed(0)} ms`);
    return {
      new_mail_p95_ms_over_interval: round(over.p95),
      new_mail_local_p95_ms: round(l.p95),
      ...summaryKeys('new_mail_after_poll_ms', over),
      ...summaryKeys('new_mail_remote_ms', r),
      new_mail_remote_p95_minus_interval_ms: round(r.p95 - 1000),
      new_mail_poll_interval_ms: 1000,
      ...summaryKeys('new_mail_local_ms', l),
    };
  },
};
