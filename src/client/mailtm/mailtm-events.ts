/**
 * mail.tm's new-mail push: its Mercure hub streams an event (server-sent events) for each change on an
 * account's topic, `/accounts/{id}`, to a client holding the account's token. Any event means "list
 * again". The stream is watched by event-watch.ts (reopened after a backoff, polling meanwhile); a 401
 * gets a new token first.
 */
import type { MailWatch, MailWatchEvents } from '../client-types';
import { watchEventStream } from '../push/event-watch';
import type { HttpStream } from '../http/http-client';

export interface MailtmStreamSource {
  /** Opens the account's event stream (resolves once the hub answered 2xx). */
  open(): Promise<HttpStream>;
  /** Gets a new token after the hub refused the current one. */
  relogin(): Promise<unknown>;
}

/** Starts watching; `events.onMail` for every event, `events.onState` as the channel comes and goes. */
export function watchMailtm(
  source: MailtmStreamSource,
  events: MailWatchEvents,
  random: () => number = Math.random,
): MailWatch {
  return watchEventStream(source, events, { random });
}
