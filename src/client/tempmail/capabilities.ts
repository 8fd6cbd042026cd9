/**
 * What a tempmail service says it offers beyond the interface, in the `Tempmail-Capabilities` header of
 * its answers (the reference service: `bearer, events`; a service of the interface alone: nothing):
 * `bearer`, the token in an Authorization header on every route, so it stays out of URLs and proxy
 * logs; `events`, GET /events, a stream of news of mail. The first answer of the service says it (an
 * error answer only when it names them: one that does not may be a proxy's page), and the client keeps
 * it for its life.
 *
 * Until an answer has said, a call that carries a token sends it in the Authorization header only: a
 * service that takes it answers (and says so); one of the interface alone did not see a token and
 * refuses (a 4xx), and the call is made once more with the token as a parameter, as the interface says
 * (carry() in tempmail-client.ts). So the token is never in a URL for a service that takes it in a
 * header, from the first call on, and no request is spent on asking.
 */
import type { HttpAnswer } from '../http/http-client';

export const CAPABILITIES_HEADER = 'tempmail-capabilities';

/** The capabilities an answer names: a comma-separated list; none when the header is absent. */
function capabilitiesOf(headers: HttpAnswer<unknown>['headers']): Set<string> {
  const value = headers[CAPABILITIES_HEADER];
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  // A bounded header of short names: anything else is not ours to read.
  return new Set(
    text
      .slice(0, 256)
      .split(',')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => /^[a-z][a-z0-9-]{0,31}$/.test(c)),
  );
}

/** A service's capabilities, as its first answer said them. */
export class Capabilities {
  private known: Set<string> | undefined;
  private readonly waiters = new Set<(known: Set<string>) => void>();

  /** Learns from an answer of the service (the first one says it all). */
  learn(answer: Pick<HttpAnswer<unknown>, 'headers'>): void {
    if (this.known) return;
    const known = capabilitiesOf(answer.headers);
    this.known = known;
    for (const wake of [...this.waiters]) wake(known);
    this.waiters.clear();
  }

  /** What the service offers, or undefined while no answer has said. */
  get(): Set<string> | undefined {
    return this.known;
  }

  /**
   * What the service offers, once an answer has said (rejects after `timeoutMs` without one, or at once
   * when `signal` aborts: its timer must not keep a finished command's process alive).
   */
  settled(timeoutMs: number, signal?: AbortSignal): Promise<Set<string>> {
    if (this.known) return Promise.resolve(this.known);
    if (signal?.aborted) return Promise.reject(new Error('cancelled'));
    return new Promise((resolve, reject) => {
      const end = (outcome: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
        this.waiters.delete(wake);
        outcome();
      };
      const timer = setTimeout(() => end(() => reject(new Error('the service has not answered yet'))), timeoutMs);
      const cancel = () => end(() => reject(new Error('cancelled')));
      const wake = (known: Set<string>) => end(() => resolve(known));
      signal?.addEventListener('abort', cancel, { once: true });
      this.waiters.add(wake);
    });
  }
}
