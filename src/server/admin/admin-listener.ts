/**
 * `--admin-listen HOST:PORT` (config `adminListen`): the admin API on a listener of its own, a private
 * address the operator reaches, so that it is not on the public HTTP port at all (404 there, as for a
 * path that is no route). The same HTTP front end serves it, with the /admin/ routes only: the token,
 * the answers and the log are as on the HTTP port.
 *
 * An operator needs a connection or two: at most MAX_ADMIN_CONNECTIONS are open at once (more are
 * closed at once), so a stray client cannot take the file descriptors SMTP and the store need.
 */
import { createHttpFront, type HttpHooks } from '../http/http-server';
import type { RouteExtras } from '../http/routes';
import type { Logger } from '../observe/log';
import type { MailService } from '../service/service-types';

const MAX_ADMIN_CONNECTIONS = 16;

export interface AdminListener {
  /** e.g. "http://127.0.0.1:9026/": what `tempmail-tui admin --url` takes. */
  url: string;
  close(): Promise<void>;
}

export interface AdminListenerOptions {
  where: { host: string; port: number };
  /** Holds the admin API (a reload may put another there, or none: then every path is 404). */
  extras: RouteExtras;
  log: Logger;
  /** The request's head, and the whole request (ms): the HTTP port's limits. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Each answer, for the metrics (as on the HTTP port). */
  answered?: HttpHooks['answered'];
}

/** Listens on `where` (port 0 = any free one); rejects with a sentence when it cannot. */
export async function startAdminListener(service: MailService, options: AdminListenerOptions): Promise<AdminListener> {
  const { where } = options;
  const front = createHttpFront(service, {
    log: options.log,
    extras: options.extras,
    adminOnly: true,
    headersTimeoutMs: options.headersTimeoutMs,
    requestTimeoutMs: options.requestTimeoutMs,
    hooks: { answered: options.answered },
  });
  front.server.maxConnections = MAX_ADMIN_CONNECTIONS;
  const port = await front.listen(where.port, where.host).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`the admin API could not listen on ${where.host}:${where.port}: ${error.code ?? error.message}`);
  });
  const host = where.host.includes(':') ? `[${where.host}]` : where.host;
  return { url: `http://${host}:${port}/`, close: () => front.close() };
}
