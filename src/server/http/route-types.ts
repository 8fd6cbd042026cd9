/**
 * The shape of a route of the HTTP front end, in a file of its own so that the routes of other files
 * (events-route.ts, admin/admin-routes.ts) and the table that gathers them (routes.ts) import it from
 * one place, with no circle between them.
 */
import type { ServerResponse } from 'node:http';
import type { AdminApi } from '../admin/admin-api';
import type { MailService } from '../service/service-types';
import type { CheckMailCache } from './check-mail-cache';
import type { EventHub } from './events';
import type { Params } from './params';

/**
 * What a handler answers: a JSON object, JSON already serialized (with its ETag), 304, bytes, or a
 * stream that writes the answer itself (GET /events; it may throw an HttpError before writing anything).
 */
export type RouteResult =
  | { kind: 'json'; status?: number; body: Record<string, unknown>; headers?: Record<string, string> }
  | { kind: 'serialized'; body: Buffer; etag: string }
  | { kind: 'not-modified'; etag: string }
  | { kind: 'bytes'; body: Buffer; headers: Record<string, string> }
  | { kind: 'stream'; open(res: ServerResponse): void; headers: Record<string, string> };

/** What the front end holds beside the service, for the routes that need it. */
export interface RouteExtras {
  /** The open event streams (GET /events). */
  events?: EventHub;
  /** The admin API, when serve was started with an admin token (src/server/admin/). */
  admin?: AdminApi;
}

export interface RouteContext {
  params: Params;
  clientAddress: string;
  /** The request's If-None-Match header, if any. */
  ifNoneMatch: string | undefined;
  /** check-mail answers kept per version of each inbox's listing. */
  checkMail: CheckMailCache;
  /** True once the service is closing (GET /ready says so, for a load balancer to drain it). */
  draining: () => boolean;
  /** The token of an `Authorization: Bearer` header (already in `params` as `token`, except on /admin/ routes). */
  bearer: string | undefined;
  extras: RouteExtras;
}

export interface Route {
  method: 'GET' | 'POST';
  handle(service: MailService, ctx: RouteContext): Promise<RouteResult>;
}
