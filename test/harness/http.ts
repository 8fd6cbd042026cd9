/**
 * Raw HTTP calls to the reference service for the server's own tests: real requests over loopback with
 * fetch, so a test can choose the method, the encoding and the exact bytes (the client module would not).
 */

export interface CallOptions {
  method?: string;
  query?: Record<string, string | number>;
  form?: Record<string, string | number>;
  json?: unknown;
  /** Raw body bytes (with `headers` to set its content type). */
  body?: string | Buffer;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: Record<string, any> | undefined;
  bytes: Buffer;
}

/** Makes one request to `baseUrl + path` and reads the whole answer. */
export async function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<CallResult> {
  const url = new URL(path.replace(/^\//, ''), baseUrl);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.append(k, String(v));
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.body;
  if (options.form) {
    body = new URLSearchParams(Object.entries(options.form).map(([k, v]): [string, string] => [k, String(v)])).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const method = options.method ?? (body === undefined ? 'GET' : 'POST');
  const res = await fetch(url, { method, headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: Record<string, any> | undefined;
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
