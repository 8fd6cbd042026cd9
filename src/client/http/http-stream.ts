/** A request whose answer is read as it comes (server-sent events), through the client's got instance. */
import type { Got, Response } from 'got';
import { ApiError, cancelled } from '../api-error';
import { toApiError } from './got-load';

/** What a request sends besides its method and path. */
export interface HttpRequest {
  searchParams?: Record<string, string | number>;
  form?: Record<string, string | number>;
  json?: unknown;
  headers?: Record<string, string>;
  /** Secrets this request carries (a token, a password): kept out of every error from now on. */
  secrets?: readonly string[];
}

/** A long-lived answer read as it arrives (server-sent events). */
export interface HttpStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, chunk by chunk; ends when the server closes, throws an ApiError when the connection fails. */
  chunks: AsyncIterable<Buffer>;
  /** Ends the request (the iteration then ends). Safe to call twice. */
  close(): void;
}

// got's stream interface: the headers within `timeoutMs` (like any request), then the body for as long
// as the server keeps it open, or until `signal` aborts (the caller is done: the stream is closed).
// Errors become ApiErrors built from scratch, as for every other request.
export function openStream(
  http: Got,
  path: string,
  request: HttpRequest,
  secrets: readonly string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<HttpStream> {
  if (signal?.aborted) return Promise.reject(cancelled());
  const pending = http.stream(path, {
    searchParams: request.searchParams,
    headers: request.headers,
    retry: { limit: 0 },
    // No `request` limit: the stream is meant to stay open. The answer must still start in time.
    timeout: { request: undefined, response: timeoutMs },
  });
  let closed = false;
  let refuse: ((error: ApiError) => void) | undefined;
  // Before the answer: the opening fails; after it: the body ends, as a close() of the caller's does.
  const cancel = () => {
    close();
    refuse?.(cancelled());
  };
  const close = () => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener('abort', cancel);
    pending.destroy();
  };
  return new Promise<HttpStream>((resolve, reject) => {
    const fail = (error: unknown) => reject(toApiError(error, secrets, timeoutMs, Infinity));
    refuse = reject;
    signal?.addEventListener('abort', cancel, { once: true });
    pending.once('error', fail);
    pending.once('response', (response: Response) => {
      pending.off('error', fail);
      if (response.statusCode >= 300) {
        close();
        reject(
          new ApiError('bad_response', `The service redirected (HTTP ${response.statusCode}); check the base URL`, {
            status: response.statusCode,
          }),
        );
        return;
      }
      const chunks = (async function* (): AsyncGenerator<Buffer> {
        try {
          for await (const chunk of pending) yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        } catch (error) {
          // Closing on purpose ends the iteration; anything else is the connection failing.
          if (!closed) throw toApiError(error, secrets, timeoutMs, Infinity);
        }
      })();
      resolve({ status: response.statusCode, headers: response.headers, chunks, close });
    });
  });
}
