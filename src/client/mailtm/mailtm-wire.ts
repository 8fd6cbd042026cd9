/**
 * mail.tm's requests as every call of the provider makes them: JSON-LD or JSON in, the bearer token of
 * the address, and a new token from the saved password when one is refused (one sign-in per address
 * however many calls were refused at once).
 */
import type { PublicProviderOptions } from '../client-types';
import type { Session } from '../../model/mail-types';
import { ApiError, isApiError } from '../api-error';
import { asKind } from '../http/error-map';
import type { HttpClient, HttpMethod } from '../http/http-client';
import type { Pacer } from '../pacing/pacer';
import { badResponse, parseJson } from '../wire/wire-json';
import { parseToken } from './mailtm-parse';

const ACCEPT = 'application/ld+json, application/json;q=0.9';

export interface MailtmOptions extends PublicProviderOptions {
  /** Requests started per second when no `pacer` is given (default 8, the documented limit; 0: no spacing). */
  requestsPerSecond?: number;
  /** The new-mail event stream (default: mercure.<domain> for an api.<domain> base, else <base>.well-known/mercure). */
  eventsUrl?: string;
  /** Told of each token had by signing in again, so that the saved address keeps it (and the next run need not sign in). */
  onSignedIn?: (email: string, token: string) => void;
}

/** What one mail.tm provider keeps: its HTTP client, its pacer and what it learnt of each address. */
export interface MailtmContext {
  options: MailtmOptions;
  http: HttpClient;
  pacer: Pacer;
  base: URL;
  /** The token each address last got (a refused one is replaced). */
  tokens: Map<string, string>;
  /** The sign-in in flight per address. */
  refreshing: Map<string, Promise<string>>;
  /**
   * Attachment download URLs as the last reading of their message gave them: the newest few thousand
   * (one forgotten is asked for at its documented address, which is where mail.tm serves it too).
   */
  downloadUrls: Map<string, string>;
}

/** What a request sends besides its method and path. */
export interface Call {
  token?: string;
  json?: unknown;
  searchParams?: Record<string, string | number>;
  headers?: Record<string, string>;
  secrets?: readonly string[];
}

/** One request; its JSON (undefined for an empty body) and the size of its answer. */
export async function sized(
  ctx: MailtmContext,
  method: HttpMethod,
  path: string,
  c: Call = {},
): Promise<{ data: unknown; bytes: number }> {
  const headers: Record<string, string> = { accept: ACCEPT, ...c.headers };
  if (c.token !== undefined) headers.authorization = `Bearer ${c.token}`;
  const secrets = [...(c.token ? [c.token] : []), ...(c.secrets ?? [])];
  const answer = await ctx.http.request(method, path, { json: c.json, searchParams: c.searchParams, headers, secrets });
  const bytes = Buffer.byteLength(answer.body);
  if (!answer.body.trim()) return { data: undefined, bytes };
  const data = parseJson(answer.body);
  if (data === undefined) throw badResponse('not JSON');
  return { data, bytes };
}

/** One request's JSON (undefined for an empty body). */
export const call = async (ctx: MailtmContext, method: HttpMethod, path: string, c: Call = {}): Promise<unknown> =>
  (await sized(ctx, method, path, c)).data;

const keyOf = (s: Session) => s.email.toLowerCase();
/** The address's newest token. */
export const tokenOf = (ctx: MailtmContext, s: Session) => ctx.tokens.get(keyOf(s)) ?? s.token;

/** A new token from the saved password; one request per address however many calls were refused. */
export function login(ctx: MailtmContext, session: Session): Promise<string> {
  const key = keyOf(session);
  const password = session.password;
  if (!password) {
    return Promise.reject(
      new ApiError('invalid_token', 'mail.tm refused this address and no password is saved to sign in again'),
    );
  }
  let pending = ctx.refreshing.get(key);
  if (!pending) {
    pending = signIn(ctx, session, password).finally(() => ctx.refreshing.delete(key));
    ctx.refreshing.set(key, pending);
  }
  return pending;
}

async function signIn(ctx: MailtmContext, session: Session, password: string): Promise<string> {
  try {
    const { token } = parseToken(
      await call(ctx, 'POST', 'token', { json: { address: session.email, password }, secrets: [password] }),
    );
    ctx.http.addSecret(token);
    ctx.tokens.set(keyOf(session), token);
    try {
      ctx.options.onSignedIn?.(session.email, token);
    } catch {
      // Only saves a sign-in for later: this one has its token.
    }
    return token;
  } catch (error) {
    if (isApiError(error) && error.kind === 'invalid_token') {
      throw asKind(error, 'invalid_token', 'mail.tm no longer knows this account (deleted, or its password changed)');
    }
    throw error;
  }
}

/**
 * Runs `fn` with the address's token; on 401, once more with a new one from its password. An address
 * saved before its first sign-in went through (no token) signs in first.
 */
export async function authed<T>(ctx: MailtmContext, session: Session, fn: (token: string) => Promise<T>): Promise<T> {
  if (session.token) ctx.http.addSecret(session.token);
  if (session.password) ctx.http.addSecret(session.password);
  const token = tokenOf(ctx, session) || (await login(ctx, session));
  try {
    return await fn(token);
  } catch (error) {
    if (!(isApiError(error) && error.kind === 'invalid_token')) throw error;
    return fn(await login(ctx, session));
  }
}
