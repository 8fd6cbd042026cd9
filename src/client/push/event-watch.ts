/**
 * A new-mail push over server-sent events, whatever the provider: mail.tm's Mercure hub
 * (mailtm/mailtm-events.ts) and a tempmail service's GET /events (tempmail/tempmail-events.ts). Each
 * event the provider counts as news means "list again": the mail itself is read through the API as
 * usual. A stream that fails or ends is opened again after a backoff (2 s doubling, with jitter, to
 * 60 s); a refused token may be renewed first (mail.tm); a failure that asking again cannot fix ends
 * the watch. Polling never stops meanwhile, so a stream that never works costs nothing but its retries.
 */
import { isApiError, type ApiError } from '../api-error';
import type { MailWatch, MailWatchEvents, PushState } from '../client-types';
import type { HttpStream } from '../http/http-client';
import { backoffDelay } from '../pacing/poller';
import { readEvents, type ServerEvent } from './sse';

export interface EventStreamSource {
  /** Opens the stream (resolves once the service answered 2xx). */
  open(): Promise<HttpStream>;
  /** Gets a new token after the service refused the current one (mail.tm); absent: a refusal is like any failure. */
  relogin?(): Promise<unknown>;
}

export interface EventWatchOptions {
  /** Whether an event is news of mail (default: any event with data). */
  isMail?(event: ServerEvent): boolean;
  /** Whether an event ends the watch for good (the session expired). */
  isEnd?(event: ServerEvent): boolean;
  /** Whether a failure ends the watch for good (asking again cannot fix it). */
  isFatal?(error: unknown): boolean;
  /**
   * Tells onMail once each time a stream opens: mail stored before the service started watching for this
   * stream (after the inbox's last check, or while a lost stream was away) would otherwise go unsaid.
   */
  mailOnOpen?: boolean;
  /**
   * How long an open stream may stay silent (ms) before it is taken for gone and opened again, from what
   * its answer said; undefined: no limit. A connection dropped without a word (a NAT that forgot it, a
   * laptop that slept) never ends by itself, and the watch stayed "live" on it for good.
   */
  idleMs?(stream: HttpStream): number | undefined;
  random?: () => number;
}

const BASE_DELAY_MS = 2_000;
const MAX_DELAY_MS = 60_000;

/** Starts watching; `events.onMail` for news, `events.onState` as the channel comes and goes. */
export function watchEventStream(
  source: EventStreamSource,
  events: MailWatchEvents,
  options: EventWatchOptions = {},
): MailWatch {
  const isMail = options.isMail ?? ((event: ServerEvent) => event.data.trim() !== '');
  const random = options.random ?? Math.random;
  let stopped = false;
  let stream: HttpStream | null = null;
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const say = (state: PushState) => {
    if (!stopped) events.onState(state);
  };

  (async () => {
    let failures = 0;
    let reloggedIn = false;
    while (!stopped) {
      say('connecting');
      let ended = false;
      try {
        const open = await source.open();
        if (stopped) {
          open.close();
          break;
        }
        stream = open;
        failures = 0;
        reloggedIn = false;
        say('live');
        if (options.mailOnOpen) events.onMail();
        const idleMs = options.idleMs?.(open);
        // Closing it ends the reading below as the service's own end would: opened again after the backoff.
        const silence = idleMs === undefined ? undefined : new Deadline(idleMs, () => open.close());
        try {
          for await (const event of readEvents(heard(open.chunks, () => silence?.restart()))) {
            if (stopped) break;
            if (options.isEnd?.(event)) {
              ended = true;
              break;
            }
            if (isMail(event)) events.onMail();
          }
        } finally {
          silence?.stop();
        }
      } catch (error) {
        if (stopped) break;
        // A refused token: a new one, and straight back (once; a second refusal backs off like any failure).
        if (source.relogin && isApiError(error) && error.kind === 'invalid_token' && !reloggedIn) {
          reloggedIn = true;
          try {
            await source.relogin();
            continue;
          } catch {
            // The account itself is refused: keep trying slowly; the inbox's own polling reports it.
          }
        }
        if (options.isFatal?.(error)) ended = true;
      } finally {
        stream?.close();
        stream = null;
      }
      if (stopped) break;
      say('down');
      if (ended) break;
      failures += 1;
      await pause(backoffDelay(failures, BASE_DELAY_MS, MAX_DELAY_MS, random));
    }
  })().catch(() => {
    // Never reached (every failure is caught above); a watch must not become an unhandled rejection.
  });

  return {
    stop() {
      if (stopped) return;
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      wake?.();
      stream?.close();
    },
  };
}

/** Failures of a stream that asking again cannot fix: the token or the route is not there. */
export function isFatalStreamError(error: unknown): error is ApiError {
  return isApiError(error) && ['invalid_token', 'session_expired', 'not_found', 'wrong_service'].includes(error.kind);
}

/** `chunks` as they are, calling `onChunk` as each arrives. */
async function* heard(chunks: AsyncIterable<Buffer>, onChunk: () => void): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    onChunk();
    yield chunk;
  }
}

/** Calls `expire` once `ms` pass without a restart(). */
class Deadline {
  private timer: ReturnType<typeof setTimeout>;

  constructor(
    private readonly ms: number,
    private readonly expire: () => void,
  ) {
    this.timer = setTimeout(expire, ms);
  }

  restart(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.expire, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
