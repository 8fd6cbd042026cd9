/**
 * app_rss_over_ink_{1000,10k} and app_rss_growth_mb_*: the app's resident memory beside the smallest Ink
 * app's (issue 38), and whether it stays flat under what a long session does.
 *
 * The Ink peer is bench/peer-ink/peer-app.tsx (one <Text>), bundled as the app is (startup.ts), in its
 * own 80x24 pty beside the app, same Node, same run; its RSS is read when the app's is.
 * - app_rss_over_ink_1000: the app on an inbox of 1,000 ~3 KB messages (delivered over SMTP to a fresh
 *   `serve`; 200 with --quick), after 300 polls (30), over the peer's RSS then.
 * - app_rss_over_ink_10k: the app on the seeded 10,000-message inbox (2,000 with --quick) after 100 polls
 *   (10), over the peer's.
 * - growth, on the 1,000-message app, each phase after the one before, each its RSS at the end minus at
 *   its first tenth. RSS is a sawtooth (the old generation fills to 1.25x what survived and is collected,
 *   V8's page pool fills and is given back, the young generation shrinks then and grows again): readings
 *   of one phase, each taken once the app had gone quiet, spread over 20 MB, and a median of five of them
 *   at each end put the same build's growth anywhere from -0.3 to 8.7 MB (docs/performance.md). So RSS
 *   is read every SAMPLE_MS while the phase runs, and each end is the mean over a twentieth of the steps
 *   (the one that ends the first tenth, and the last one), or over the 3 s up to there when those steps
 *   were quicker (3,000 polls take ~20 s).
 *   - app_rss_growth_mb_3000_polls: `r` pressed 3,000 times (300), each counted once `serve` logged it; the
 *     1,000 figure is read after its first tenth (300 polls; 30 with --quick);
 *   - app_rss_growth_mb_5000_new: 5,000 new messages (500), in batches of 50 over SMTP, each batch
 *     followed by a poll that lists it and by deleting the 50 oldest, so the list stays at 1,000 and what
 *     is measured is the churn, not a longer list;
 *   - app_rss_growth_mb_1000_opens: the selected message opened (Enter, its body on screen) and closed
 *     (Esc, the list again) 1,000 times (100), moving down one row after each.
 */
import type { Figure, RunContext } from './figure';
import { buildPeer } from './startup';
import { isInbox, openInboxApp } from '../harness/inbox-app';
import { PtyApp } from '../harness/pty-app';
import { createInbox } from '../harness/service-calls';
import { startServe, type RunningServe } from '../harness/serve-proc';
import { dataPayload, SmtpConnection } from '../harness/smtp-client';
import { rssMb } from '../harness/proc';
import { round, sleep } from '../harness/stats';
import { steadyRss } from './memory';
import { tempDir } from '../harness/temp';
import { dataset } from '../seed/datasets';
import { listInboxes, orderSubject, QUICK_BIG } from '../seed/inboxes';
import { notification } from '../seed/mail-samples';
import type { SeededInbox } from '../seed/seed-store';

const BATCH = 50;
// How often the app's RSS is read while a growth phase runs.
const SAMPLE_MS = 50;
// The shortest time each end of a phase is averaged over: a few of the sawtooth's teeth (a full
// collection every 0.5-3 s under this load).
const MIN_WINDOW_MS = 3_000;

/** The app and the peer, each a steady reading, taken together. */
async function both(app: PtyApp, peer: PtyApp): Promise<{ app: number; peer: number }> {
  await app.settle(50);
  const [a, p] = await Promise.all([steadyRss(app.pid), steadyRss(peer.pid)]);
  return { app: a, peer: p };
}

/** Presses `r` until serve has logged `count` more check-mail requests. */
async function poll(app: PtyApp, serve: RunningServe, count: number): Promise<void> {
  const target = serve.checkMailCount() + count;
  while (serve.checkMailCount() < target) {
    await app.settle(50);
    const before = serve.checkMailCount();
    app.write('r');
    const deadline = performance.now() + 5_000;
    // A refresh asked for while a timed poll is in flight does nothing; that poll counts too.
    while (serve.checkMailCount() === before && performance.now() < deadline) await sleep(5);
  }
}

async function deliver(serve: RunningServe, to: string, first: number, count: number): Promise<void> {
  const smtp = await SmtpConnection.open(serve.smtpHost, serve.smtpPort);
  try {
    for (let i = first; i < first + count; i++)
      await smtp.send('bench@example.org', to, dataPayload(notification(to, orderSubject(i), i)));
  } finally {
    await smtp.close();
  }
}

/** Deletes the `count` oldest messages of `inbox` through the service's API. */
async function deleteOldest(serve: RunningServe, inbox: SeededInbox, count: number): Promise<void> {
  const list = (await (await fetch(new URL(`check-mail?token=${inbox.token}`, serve.baseUrl))).json()) as {
    messages: { id: number }[];
  };
  const ids = list.messages
    .map((m) => m.id)
    .sort((a, b) => a - b)
    .slice(0, count);
  for (const id of ids) {
    const res = await fetch(new URL('delete-mail', serve.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: inbox.token, id: String(id) }).toString(),
    });
    if (res.status !== 200) throw new Error(`delete-mail answered ${res.status}`);
  }
}

/**
 * Runs `steps` steps of a phase, the app's RSS sampled every SAMPLE_MS meanwhile; its growth: the mean
 * RSS over the last twentieth of the steps minus over the twentieth that ends the first tenth, each at
 * least MIN_WINDOW_MS long (issue 38: "growth <= 5 MB after the first 10 %"). `atTenth` runs once the
 * first tenth is done, unsampled.
 */
async function phase(
  app: PtyApp,
  steps: number,
  step: (i: number) => Promise<void>,
  atTenth?: () => Promise<void>,
): Promise<Growth> {
  const tenth = Math.ceil(steps / 10);
  const width = Math.max(1, Math.round(steps / 20));
  const samples: { at: number; step: number; mb: number }[] = [];
  let current = 0;
  let paused = false;
  const timer = setInterval(() => {
    if (!paused) samples.push({ at: performance.now(), step: current, mb: rssMb(app.pid) });
  }, SAMPLE_MS);
  try {
    for (let i = 0; i < steps; i++) {
      current = i;
      await step(i);
      if (i + 1 === tenth && atTenth) {
        paused = true;
        await atTenth();
        paused = false;
      }
    }
  } finally {
    clearInterval(timer);
  }
  // The samples of the `width` steps up to `to`, or of the MIN_WINDOW_MS up to there if those were quicker.
  const upTo = (to: number) => {
    const inSteps = samples.filter((s) => s.step >= to - width && s.step < to);
    if (inSteps.length === 0) throw new Error('no RSS sample in a window of the phase');
    const from = Math.min(inSteps[0]!.at, inSteps.at(-1)!.at - MIN_WINDOW_MS);
    return spread(samples.filter((s) => s.step < to && s.at >= from).map((s) => s.mb));
  };
  const start = upTo(tenth);
  const end = upTo(steps);
  return { mb: end.mean - start.mean, start, end };
}

interface Spread {
  mean: number;
  min: number;
  max: number;
  n: number;
}

interface Growth {
  mb: number;
  start: Spread;
  end: Spread;
}

function spread(values: number[]): Spread {
  return {
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: Math.min(...values),
    max: Math.max(...values),
    n: values.length,
  };
}

const shown = (name: string, g: Growth): string =>
  `${name} ${g.mb.toFixed(1)} MB (${g.start.mean.toFixed(1)} [${g.start.min.toFixed(1)}-${g.start.max.toFixed(1)}, ${g.start.n}] -> ${g.end.mean.toFixed(1)} [${g.end.min.toFixed(1)}-${g.end.max.toFixed(1)}, ${g.end.n}])`;

/** Enter on the selected message to a screen that is not the list, Esc back to the list, `j`. */
async function openAndClose(app: PtyApp): Promise<void> {
  await app.settle(50);
  app.write('\r');
  await app.until((s) => !isInbox(s), 30_000, 'the viewer after Enter');
  await app.settle(50);
  app.write('\x1b');
  await app.until(isInbox, 30_000, 'the inbox again after Esc');
  app.write('j');
}

async function thousand(ctx: RunContext, peerPath: string) {
  const [messages, polls, fresh, opens] = ctx.quick ? [200, 300, 500, 100] : [1_000, 3_000, 5_000, 1_000];
  const serve = await startServe({ dataDir: tempDir('tempmail-bench-appmem-'), args: ['--inbox-limit', '1000000'] });
  ctx.defer(() => serve.stop());
  const inbox = await createInbox(serve.baseUrl);
  await deliver(serve, inbox.email, 0, messages);
  const peer = new PtyApp({ argv: [peerPath] });
  ctx.defer(() => peer.stop());
  const app = await openInboxApp({
    baseUrl: serve.baseUrl,
    inbox,
    loaded: (s) => s.includes(orderSubject(messages - 1)),
  });
  ctx.defer(() => app.stop());
  await sleep(2_000);
  // The 1,000 figure is read once the first tenth of the polls is done, the app and the peer together.
  let level = { app: 0, peer: 0 };
  const pollGrowth = await phase(
    app,
    polls,
    () => poll(app, serve, 1),
    async () => {
      level = await both(app, peer);
    },
  );
  ctx.log(`app memory: ${messages} listed, ${level.app.toFixed(1)} MB, Ink peer ${level.peer.toFixed(1)} MB`);
  const newGrowth = await phase(app, fresh / BATCH, async (i) => {
    await deliver(serve, inbox.email, messages + i * BATCH, BATCH);
    await poll(app, serve, 1);
    await deleteOldest(serve, inbox, BATCH);
  });
  await poll(app, serve, 1);
  const openGrowth = await phase(app, opens, () => openAndClose(app));
  ctx.log(
    `app memory: growth, mean RSS [min-max, samples] at the first tenth -> at the end: ${shown('polls', pollGrowth)}; ${shown('new mail', newGrowth)}; ${shown('opens', openGrowth)}`,
  );
  await Promise.all([app.stop(), peer.stop(), serve.stop()]);
  return {
    app_rss_over_ink_1000: round(level.app / level.peer),
    app_rss_mb_1000: round(level.app),
    app_ink_peer_rss_mb: round(level.peer),
    app_rss_growth_mb_3000_polls: round(pollGrowth.mb),
    app_rss_growth_mb_5000_new: round(newGrowth.mb),
    app_rss_growth_mb_1000_opens: round(openGrowth.mb),
    app_rss_messages_small: messages,
  };
}

async function tenThousand(ctx: RunContext, peerPath: string) {
  const data = await dataset(listInboxes(ctx.quick ? QUICK_BIG : 10_000), ctx.log);
  const serve = await startServe({ dataDir: data.dataDir });
  ctx.defer(() => serve.stop());
  const peer = new PtyApp({ argv: [peerPath] });
  ctx.defer(() => peer.stop());
  const app = await openInboxApp({
    baseUrl: serve.baseUrl,
    inbox: data.inboxes.big!,
    loaded: (s) => /Order \d{5} shipped/.test(s),
  });
  ctx.defer(() => app.stop());
  await sleep(2_000);
  await poll(app, serve, ctx.quick ? 10 : 100);
  const level = await both(app, peer);
  ctx.log(
    `app memory: ${data.inboxes.big!.messages} listed, ${level.app.toFixed(1)} MB, Ink peer ${level.peer.toFixed(1)} MB`,
  );
  await Promise.all([app.stop(), peer.stop(), serve.stop()]);
  return {
    app_rss_over_ink_10k: round(level.app / level.peer),
    app_rss_mb_10k: round(level.app),
    app_ink_peer_rss_mb_10k_run: round(level.peer),
    app_rss_messages_big: data.inboxes.big!.messages,
  };
}

export const appMemory: Figure = {
  name: 'appmem',
  keys: [
    'app_rss_over_ink_1000',
    'app_rss_over_ink_10k',
    'app_rss_growth_mb_3000_polls',
    'app_rss_growth_mb_5000_new',
    'app_rss_growth_mb_1000_opens',
  ],
  async run(ctx) {
    const peerPath = await buildPeer();
    return { ...(await tenThousand(ctx, peerPath)), ...(await thousand(ctx, peerPath)) };
  },
};
