/**
 * The HTTP side of `tempmail-tui admin`: one request to serve's admin API (src/server/admin/), the token
 * in an Authorization header (never in the URL). Node's own fetch, with the rules the app's client keeps:
 * a timeout, no redirect followed (it would carry the token elsewhere), a size cap, and errors in words
 * that name neither the token nor a URL's credentials.
 */
import { networkWords } from '../../client/http/error-map';
import { ScriptError } from '../io';

const TIMEOUT_MS = 15_000;
const MAX_BYTES = 16 * 1024 * 1024;

export interface AdminTarget {
  /** The service's base URL, one trailing slash. */
  baseUrl: string;
  token: string;
}

/** The service's answer: its JSON object (status "success"), or a ScriptError saying why not. */
export async function adminCall(
  target: AdminTarget,
  method: 'GET' | 'POST',
  route: string,
  params: Record<string, string | number | undefined>,
): Promise<Record<string, unknown>> {
  const url = new URL(`admin/${route}`, target.baseUrl);
  const given = Object.entries(params).filter((e): e is [string, string | number] => e[1] !== undefined);
  if (method === 'GET') for (const [k, v] of given) url.searchParams.set(k, String(v));
  const where = url.origin;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: {
        authorization: `Bearer ${target.token}`,
        accept: 'application/json',
        'user-agent': 'tempmail-tui admin',
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
      },
      ...(method === 'POST' ? { body: JSON.stringify(Object.fromEntries(given)) } : {}),
    });
  } catch (error) {
    throw new ScriptError(`cannot reach ${where} (${reason(error)})`);
  }
  if (response.status >= 300 && response.status < 400) {
    throw new ScriptError(
      `${where} answered with a redirect (HTTP ${response.status}); give the service's own address with --url`,
    );
  }
  const text = await readCapped(response);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    data = undefined;
  }
  const body = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  if (response.ok && body?.status === 'success') return body;
  if (response.status === 404 && body?.message === 'No such route') {
    throw new ScriptError(
      `${where} has no admin API (start serve with --admin-token-file), or this is not tempmail-tui serve`,
    );
  }
  if (response.status === 401) throw new ScriptError(`${where} refused the admin token`);
  const said = typeof body?.message === 'string' ? body.message : `HTTP ${response.status}`;
  throw new ScriptError(said);
}

async function readCapped(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ScriptError(`the answer is larger than ${MAX_BYTES / 1024 / 1024} MiB`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A failed fetch in words: its cause's error code as the app's client words it (client/http/error-map.ts),
 * never the code itself, nor the message (which may quote the URL).
 */
function reason(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return (typeof code === 'string' && networkWords(code)) || 'a network error';
}
