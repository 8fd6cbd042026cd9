/**
 * mail.tm's new-mail push: its Mercure hub streams an event (server-sent events) for each change on an
 * account's topic, `/accounts/{id}`, to a client holding the account's token. Any event means "list
 * again": the message itself is read through the API as usual. A stream that fails or ends is opened
 * again after a backoff (2 s doubling, with jitter, to 60 s); a 401 gets a new token first. Polling never
 * stops meanwhile, so a stream that never works costs nothing but its retries.
 */
import { isApiError } from '../api-error';
import type { MailWatch, MailWatchEvents } from '../client-types';
import type { HttpStream } from '../http-client';
import { backoffDelay } from '../poller';
import { readEvents } from '../sse';

export interface MailtmStreamSource {
  /** Opens the account's event stream (resolves once the hub answered 2xx). */
  open(): Promise<HttpStream>;
  /** Gets a new token after the hub refused the current one. */
  relogin(): Promise<unknown>;
}

const BASE_DELAY_MS = 2_000;
const MAX_DELAY_MS = 60_000;

/** Starts watching; `events.onMail` for every event, `events.onState` as the channel comes and goes. */
export function watchMailtm(source: MailtmStreamSource, events: MailWatchEvents, random: () => number = Math.random): MailWatch {
  let stopped = false;
  let stream: HttpStream | null = null;
  let wake: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  const say = (state: Parameters<MailWatchEvents['onState']>[0]) => {
    if (!stopped) events.onState(state);
  };

  (async () => {
    let failures = 0;
    let reloggedIn = false;
    while (!stopped) {
      say('connecting');
      try {
        const opened = await source.open();
        if (stopped) {
          opened.close();
          break;
        }
        stream = opened;
        failures = 0;
        reloggedIn = false;
        say('live');
        for await (const event of readEvents(opened.chunks)) {
          if (stopped) break;
          if (event.data.trim()) events.onMail();
        }
      } catch (error) {
        if (stopped) break;
        // A refused token: a new one, and straight back (once; a second refusal backs off like any failure).
        if (isApiError(error) && error.kind === 'invalid_token' && !reloggedIn) {
          reloggedIn = true;
          try {
            await source.relogin();
            continue;
          } catch {
            // The account itself is refused: keep trying slowly; the inbox's own polling reports it.
          }
        }
      } finally {
        stream?.close();
        stream = null;
      }
      if (stopped) break;
      say('down');
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
