/**
 * Raw HTTP calls to the reference service for the server's own tests: real requests over loopback with
 * fetch, so a test can choose the method, the encoding and the exact bytes (the client module would not).
 */
import http from 'node:http';

export interface CallOptions {
  method?: string;
  query?: Record<string, string | number>;
  form?: Record<string, string | number>;
  json?: unknown;
  /** Raw body bytes (with `headers` to set its content type). */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/**
 * A JSON answer as the tests read it: they reach into the fields they assert on (res.json.messages[0].id),
 * and a wrong guess fails the assertion, so the body is not narrowed at every read.
 */
// biome-ignore lint/suspicious/noExplicitAny: the one untyped JSON body of the tests, see above
export type JsonBody = Record<string, any>;

export interface CallResult {
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: JsonBody | undefined;
  bytes: Buffer;
}

/**
 * One request from loopback address `from` (e.g. 127.0.0.5, to a service on 127.0.0.1): a distinct client
 * for the per-client limits. node:http, since fetch cannot bind its end. GET, or POST of a form.
 */
export function callFrom(
  from: string,
  baseUrl: string,
  path: string,
  form?: Record<string, string>,
): Promise<CallResult> {
  const url = new URL(path.replace(/^\//, ''), baseUrl);
  const body = form ? new URLSearchParams(form).toString() : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        localAddress: from,
        agent: false,
        headers:
          body === undefined
            ? {}
            : {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': String(Buffer.byteLength(body)),
              },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          let json: JsonBody | undefined;
          try {
            json = JSON.parse(bytes.toString('utf8'));
          } catch {
            json = undefined;
          }
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers, json, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Makes one request to `baseUrl + path` and reads the whole answer. */
export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const url = new URL(path.replace(/^\//, ''), baseUrl);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.append(k, String(v));
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.body;
  if (options.form) {
    body = new URLSearchParams(
      Object.entries(options.form).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, { method, headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: JsonBody | undefined;
  try {
    json = JSON.parse(bytes.toString('utf8'));
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, bytes };
}

/** A new address (no options) on the service at `baseUrl`; throws unless it answers 200 with one. */
export async function newSession(baseUrl: string): Promise<{ email: string; token: string; expires_at: string }> {
  const res = await call(baseUrl, '/create-session', { form: {} });
  if (res.status !== 200 || typeof res.json?.email !== 'string') {
    throw new Error(`create-session answered ${res.status}: ${res.bytes.toString('utf8').slice(0, 200)}`);
  }
  return res.json as { email: string; token: string; expires_at: string };
}
