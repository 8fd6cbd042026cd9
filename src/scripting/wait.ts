/**
 * `wait`: blocks until a new message matching --from/--subject arrives at a saved address, then prints
 * its code, link, text or JSON. Lists the address's messages on its own provider every ~1.5 s (one
 * request at a time; sooner when the provider pushes new mail, as mail.tm does), waits out a 429's
 * Retry-After, backs off while the provider is unreachable, and opens only new messages whose summary
 * matches, so a busy inbox costs one listing per poll.
 */
import { isApiError, retryAfterMs } from '../client/api-error';
import { failureDelay } from '../client/pacing/poller';
import type { MailProvider } from '../client/client-types';
import { renewListed } from '../client/wire/keep-newest';
import { LISTING_LIMITS, listingNote } from '../client/wire/listing';
import { expiryMs, type Message, type MessageSummary, type Session } from '../model/mail-types';
import { flag, parseCommandArgs, seconds, show, str } from './args';
import { accepted, localTarget, makeContext, pickSession, refOf, refusal, type Context } from './context';
import type { SavedSession } from '../state/saved-sessions';
import { analyse, json, messageJson, senderOf, type ReadResult } from './script-format';
import { EXIT, ScriptError, UsageError, type ScriptIo } from './io';

const PRINT_MODES = ['code', 'link', 'text', 'json'] as const;
type PrintMode = (typeof PRINT_MODES)[number];
export const DEFAULT_WAIT_TIMEOUT_S = 300;
const DEFAULT_INTERVAL_S = 1.5;
// A script waits for one message: it looks again at least this often while the service is away.
const MAX_BACKOFF_MS = 15_000;
// A request stuck longer than this is given up and retried on the next poll, rather than eating the wait.
const REQUEST_TIMEOUT_MS = 5_000;
// How far before the start a receive time may read and still count as after it, when the first listing
// came late: wire times are whole seconds, and the service's clock may run a little behind ours.
const CLOCK_SLACK_MS = 60_000;
// Ids already judged, at most: four whole listings. Those still listed are kept (each listing renews
// them); the oldest of the rest go first, so a service listing new ids at every poll cannot grow it.
const SEEN_MAX = 4 * LISTING_LIMITS.maxItems;

interface Filters {
  from?: RegExp;
  subject?: RegExp;
}

/** `wait [--address A] [--from RE] [--subject RE] [--timeout S] [--print code|link|text|json] [--existing]`. */
export async function runWait(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('wait', args);
  // --json, common to every command, means --print json here; with another --print it is a contradiction.
  const json = parsed.values.json === true;
  const asked = str(parsed, 'print');
  if (json && asked !== undefined && asked !== 'json')
    throw new UsageError(`wait: --json and --print ${show(asked)} contradict each other`);
  const print = (asked ?? (json ? 'json' : 'text')) as PrintMode;
  if (!PRINT_MODES.includes(print)) {
    throw new UsageError(`wait: --print must be one of ${PRINT_MODES.join(', ')}, got ${show(String(print))}`);
  }
  const filters: Filters = { from: regex(parsed, 'from'), subject: regex(parsed, 'subject') };
  // 0 means no limit: wait until the address expires.
  const timeoutS = seconds('wait', parsed, 'timeout', DEFAULT_WAIT_TIMEOUT_S, 0);
  const intervalMs = seconds('wait', parsed, 'interval', DEFAULT_INTERVAL_S, 0.2) * 1000;
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  // Its own loop waits out a 429 within its own deadline, and says so: the client does not wait for it.
  const api = await ctx.open(refOf(session), { retries: 0, timeoutMs: REQUEST_TIMEOUT_MS, rateLimitWait: undefined });
  if (session.baseUrl === ctx.localKey) ctx.info(await localTarget(ctx, session.email));
  const start = ctx.now().getTime();
  const deadline = Math.min(timeoutS > 0 ? start + timeoutS * 1000 : Infinity, expiryMs(session));
  // Where the provider pushes new mail (mail.tm), an event ends the pause before the next look at once.
  const wake: Waker = { now: null };
  const watch = api.watchMail?.(session, { onMail: () => wake.now?.(), onState: () => undefined });
  try {
    return await waitLoop({
      ctx,
      io,
      api,
      session,
      start,
      deadline,
      filters,
      print,
      intervalMs,
      timeoutS,
      existing: flag(parsed, 'existing'),
      wake,
    });
  } finally {
    watch?.stop();
  }
}

/** Ends the current pause early, while one runs. */
interface Waker {
  now: (() => void) | null;
}

interface WaitRun {
  ctx: Context;
  io: ScriptIo;
  api: MailProvider;
  session: SavedSession;
  /** When `wait` started (our clock, ms). */
  start: number;
  deadline: number;
  filters: Filters;
  print: PrintMode;
  intervalMs: number;
  timeoutS: number;
  existing: boolean;
  wake: Waker;
}

// Looks, matches, backs off, until a hit (exit 0) or the deadline (a ScriptError).
async function waitLoop(w: WaitRun): Promise<number> {
  const { ctx, io, api, session, start, deadline, filters, print, intervalMs } = w;
  const what = [
    filters.from && `from ${show(filters.from.source)}`,
    filters.subject && `subject ${show(filters.subject.source)}`,
  ]
    .filter(Boolean)
    .join(' and ');
  const waiting = `Waiting for ${print === 'code' ? 'a code' : print === 'link' ? 'a link' : 'a message'} at ${session.email}${what ? ` (${what})` : ''}`;

  const seen = new Set<string>();
  let baselined = w.existing;
  if (baselined) ctx.info(`${waiting} (including messages already there)...`);
  let failures = 0;
  let lastProblem = '';
  let lastNote: string | null = null;
  // Whether every listing so far failed: then the first one that answers may hold mail that arrived
  // after the start, while the service was away.
  let late = false;
  for (;;) {
    let delay = intervalMs;
    try {
      const summaries = await beforeDeadline(api.listMessages(session), deadline, ctx);
      accepted(ctx, session);
      // What the listing left out, said once (and again only when it changes): a message past it is not seen.
      const note = listingNote(summaries.length, summaries.cut);
      if (note && note !== lastNote) ctx.info(note);
      lastNote = note;
      renewListed(
        seen,
        summaries.map((m) => m.id),
        SEEN_MAX,
      );
      if (failures > 0) ctx.info('Service reachable again.');
      failures = 0;
      lastProblem = '';
      if (!baselined) {
        // Messages already there when `wait` started are not what it waits for (unless --existing).
        const earlier = late ? receivedBefore(summaries, start - CLOCK_SLACK_MS) : summaries;
        for (const s of earlier) seen.add(s.id);
        baselined = true;
        const ignoring = earlier.length ? ` (ignoring ${earlier.length} earlier; --existing includes them)` : '';
        // Said only now: from this line on, any mail that arrives counts (scripts and tests may wait for it).
        ctx.info(`${waiting}${ignoring}...`);
      }
      // The first listing too: after an outage it may hold what arrived meanwhile.
      const hit = await firstMatch(ctx, api, session, summaries, seen, filters, print, io.columns ?? 80);
      if (hit) {
        io.stdout.write(output(hit, print));
        return EXIT.ok;
      }
    } catch (error) {
      if (error instanceof DeadlineReached) break;
      if (!isApiError(error)) throw error;
      if (error.kind === 'invalid_token' || error.kind === 'session_expired' || error.kind === 'bad_request')
        throw refusal(ctx, session, error) ?? error;
      // The base URL leads to something else (a web page, another kind of server): waiting will not help.
      if (error.kind === 'wrong_service') throw error;
      // The app's policy (client/pacing/poller.ts): a Retry-After is waited out, anything else backs off
      // exponentially with jitter from the poll interval.
      const asked = retryAfterMs(error);
      if (asked === undefined) failures += 1;
      if (!baselined) late = true;
      delay = Math.max(intervalMs, failureDelay(failures, asked, intervalMs, MAX_BACKOFF_MS, Math.random));
      if (error.message !== lastProblem)
        ctx.info(`${error.message}; retrying in ${Math.max(1, Math.round(delay / 1000))} s`);
      lastProblem = error.message;
    }
    const remaining = deadline - ctx.now().getTime();
    if (remaining <= 0) break;
    await sleep(Math.min(delay, remaining), io.signal, w.wake);
    if (io.signal?.aborted) throw new ScriptError('wait: interrupted');
  }
  if (deadline === expiryMs(session) && ctx.now().getTime() >= deadline) {
    throw new ScriptError(`wait: ${session.email} expired before a matching message arrived`);
  }
  const why = lastProblem ? ` (last problem: ${lastProblem})` : '';
  throw new ScriptError(`wait: no matching message within ${w.timeoutS} s${why}`);
}

/** Oldest first: by receive time, then by id. */
function oldestFirst(a: MessageSummary, b: MessageSummary): number {
  const t = (a.receivedAt?.getTime() ?? 0) - (b.receivedAt?.getTime() ?? 0);
  return t !== 0 ? t : compareIds(a.id, b.id);
}

/** Ids in the order a service hands them out: numerically where both are numbers. */
function compareIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The messages of a listing that were received before `before` (ms, our clock), for a first listing
 * that came after the service was away: what it holds may have arrived before `wait` started or while
 * it was waiting. Judged by the receive time (read in the service's zone, --server-tz). A message with
 * no receive time counts as earlier, unless a message with a smaller id counts as later: services number
 * messages as they arrive.
 */
export function receivedBefore(summaries: MessageSummary[], before: number): MessageSummary[] {
  const later = (s: MessageSummary) => s.receivedAt !== null && s.receivedAt.getTime() >= before;
  const firstLater = summaries
    .filter(later)
    .map((s) => s.id)
    .sort(compareIds)[0];
  return summaries.filter(
    (s) => !later(s) && !(s.receivedAt === null && firstLater !== undefined && compareIds(s.id, firstLater) > 0),
  );
}

// New messages oldest first; the first that matches and has what --print asks for.
async function firstMatch(
  ctx: Context,
  api: MailProvider,
  session: Session,
  summaries: MessageSummary[],
  seen: Set<string>,
  filters: Filters,
  print: PrintMode,
  width: number,
): Promise<ReadResult | null> {
  const fresh = summaries.filter((s) => !seen.has(s.id)).sort(oldestFirst);
  for (const summary of fresh) {
    // Listings of some services leave out sender_email: then --from is judged on the full record.
    const fromUnknown = filters.from !== undefined && !summary.senderEmail;
    if (!matches(summary, fromUnknown ? { subject: filters.subject } : filters)) {
      seen.add(summary.id);
      continue;
    }
    let message: Message;
    try {
      message = await api.readMessage(session, summary.id);
    } catch (error) {
      // Deleted between listing and reading: not the one. Anything else: retried on the next poll.
      if (isApiError(error) && error.kind === 'not_found') {
        seen.add(summary.id);
        continue;
      }
      throw error;
    }
    seen.add(summary.id);
    if (!matches(message, filters)) continue;
    const result = analyse(message, width);
    if (print === 'code' && !result.code) {
      ctx.info(`Message ${summary.id} (${show(message.subject)}) matched but has no code; still waiting`);
      continue;
    }
    if (print === 'link' && !result.link) {
      ctx.info(`Message ${summary.id} (${show(message.subject)}) matched but has no link; still waiting`);
      continue;
    }
    return result;
  }
  return null;
}

function matches(m: MessageSummary, filters: Filters): boolean {
  if (filters.from && !filters.from.test(senderOf(m))) return false;
  if (filters.subject && !filters.subject.test(m.subject)) return false;
  return true;
}

function output(r: ReadResult, print: PrintMode): string {
  switch (print) {
    case 'code':
      return `${r.code}\n`;
    case 'link':
      return `${r.link}\n`;
    case 'json':
      return json(messageJson(r));
    case 'text':
      return r.text.endsWith('\n') ? r.text : `${r.text}\n`;
  }
}

// Regexes are case-insensitive: "github" should match "GitHub <noreply@github.com>".
function regex(parsed: Parameters<typeof str>[0], name: string): RegExp | undefined {
  const source = str(parsed, name);
  if (source === undefined) return undefined;
  try {
    return new RegExp(source, 'i');
  } catch {
    throw new UsageError(`wait: --${name} is not a valid regular expression: ${show(source)}`);
  }
}

class DeadlineReached extends Error {}

// A request that outlives the deadline is abandoned (its late answer or error is dropped).
function beforeDeadline<T>(work: Promise<T>, deadline: number, ctx: Context): Promise<T> {
  const remaining = deadline - ctx.now().getTime();
  if (!Number.isFinite(remaining)) return work;
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlineReached()), Math.max(0, remaining));
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}

// `wake.now` ends the sleep early while it runs (pushed mail).
function sleep(ms: number, signal: AbortSignal | undefined, wake: Waker): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      wake.now = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    wake.now = done;
  });
}
