/**
 * A raw client of GET /events for the server's tests: a real HTTP request over loopback (node:http, so
 * the test sees every byte, comments included), with what arrived kept as text and as parsed events.
 */
import http from 'node:http';
import { waitFor } from './wait';

export interface EventStreamClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** Every byte of the body so far, as text. */
  text(): string;
  /** The `event:` names so far, in order (a comment is not an event). */
  events(): string[];
  /** Resolves when the server ended the stream: 'end' for a clean end, 'aborted' for a cut connection. */
  ended: Promise<'end' | 'aborted'>;
  /** Waits until `count` events named `name` have arrived (default 1). */
  waitForEvent(name: string, count?: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `GET {baseUrl}events` (query and headers as given) and resolves once the answer's headers are in. */
export function openEvents(
  baseUrl: string,
  options: {
    query?: Record<string, string>;
    headers?: Record<string, string> /** This end's loopback address (a client of its own). */;
    from?: string;
  } = {},
): Promise<EventStreamClient> {
  const url = new URL('events', baseUrl);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const req = http.get(
      url,
      {
        headers: { accept: 'text/event-stream', ...options.headers },
        ...(options.from ? { localAddress: options.from, agent: false } : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        const ended = new Promise<'end' | 'aborted'>((done) => {
          res.on('end', () => done('end'));
          res.on('aborted', () => done('aborted'));
          res.on('error', () => done('aborted'));
        });
        const events = () => [...body.matchAll(/^event: (.*)$/gm)].map((m) => m[1]!);
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: () => body,
          events,
          ended,
          waitForEvent: (name, count = 1, timeoutMs = 5000) =>
            waitFor(() => events().filter((e) => e === name).length >= count, {
              timeoutMs,
              message: `${count} "${name}" event(s); got ${JSON.stringify(body)}`,
            }).then(() => undefined),
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
  });
}
