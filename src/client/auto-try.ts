/**
 * One try of `--provider auto`, the scripts' (`new`) and the app's alike: a provider that trickles its
 * answers (or takes its requests and says nothing) is given AUTO_TRY_MS, every request of the try ended
 * then (its signal aborts, so its socket is released), before the next one is tried (before: ~25 s a
 * provider, its requests' own timeouts and retries, with nothing said).
 */
import { ApiError } from './api-error';
import type { MailProvider } from './client-types';

/** How long `--provider auto` gives each provider to answer before it tries the next. */
export const AUTO_TRY_MS = 8_000;

/** The words of a try that ran out of time: "did not answer in 8 s". */
export const deadlineWords = (ms: number): string => `did not answer in ${Math.round(ms / 1000)} s`;

/**
 * Runs `attempt` with a signal that ends its requests after `ms`; past it, fails with
 * ApiError('timeout', deadlineWords(ms)) at once, whatever `attempt` is still waiting on.
 */
export async function withinDeadline<T>(ms: number, attempt: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ended = new ApiError('timeout', deadlineWords(ms), {});
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort(ended);
      reject(ended);
    }, ms);
  });
  try {
    return await Promise.race([attempt(abort.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `shared` with its domain list and its address creation each a try of `ms` (the app's picker under
 * `auto`): each runs on a client of its own from `fresh`, whose requests end with the try. Every other
 * call goes to `shared` as it is.
 */
export function triedProvider(
  shared: MailProvider,
  fresh: (signal: AbortSignal) => MailProvider,
  ms: number,
): MailProvider {
  const listDomains: MailProvider['listDomains'] = () => withinDeadline(ms, (signal) => fresh(signal).listDomains());
  const createSession: MailProvider['createSession'] = (options, hooks) =>
    withinDeadline(ms, (signal) => fresh(signal).createSession(options, hooks));
  return new Proxy(shared, {
    get(target, name) {
      if (name === 'listDomains') return listDomains;
      if (name === 'createSession') return createSession;
      return Reflect.get(target, name);
    },
  });
}
