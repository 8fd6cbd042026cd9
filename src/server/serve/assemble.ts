/**
 * The one place that wires the reference service together (inbucket's lifecycle.go): a Store (file or
 * Postgres, open-storage.ts) -> MailService -> HTTP, SMTP and IMAP front ends, plus the purge timer.
 * Everything else depends on contracts.
 */
import { systemClock, type Clock, type ServerConfig } from '../config/server-config';
import { blockHooks } from '../admin/block-hooks';
import { joinSmtpHooks } from '../smtp/smtp-hooks';
import { asLogger, type Logger } from '../observe/log';
import { createOperations, limitsOf, type Operations } from './operations';
import { openStorage, type OpenedStorage } from './open-storage';
import { secretScrubber } from '../store/postgres/connection/database-url';
import { createHttpFront, type HttpFront } from '../http/http-server';
import { createMailService } from '../service/mail-service';
import type { CreatedSession, MailService } from '../service/service-types';
import { createSmtpFront, type SmtpFront } from '../smtp/smtp-intake';
import { loadTls, type LoadedTls, type TlsFiles } from '../smtp/tls-files';
import type { ImapIntake } from '../imap/imap-intake';
import { adminTokenFiles, createAdminApi, readAdminTokens, type AdminApi, type NamedToken } from '../admin/admin-api';
import { createAdminService, type AdminService } from '../admin/admin-service';
import { startAdminListener, type AdminListener } from '../admin/admin-listener';
import { EventHub, eventHubBounds } from '../http/events';
import type { RouteExtras } from '../http/routes';
import { applyConfig, type LiveParts, type ReloadReport } from '../reload/apply-config';
import type { RunningSsh } from '../ssh/start-ssh';
import { timedStore } from '../observe/timed-store';
import type { Store } from '../store/store';
import { logTokenChange } from '../admin/token-rotation';

export interface RunningServer {
  /** Base URL with a trailing slash, e.g. "http://127.0.0.1:43211/". */
  httpUrl: string;
  httpPort: number;
  smtpHost: string;
  smtpPort: number;
  service: MailService;
  config: ServerConfig;
  /** Where the data is: the data dir, or `database <URL without its password>`. */
  storage: string;
  /** Limits, health, counters (stats for an admin API; limits for a reload). */
  ops: Operations;
  /** The SSH front (docs/server/ssh.md), when `sshPort` is set. */
  ssh?: RunningSsh;
  /** The admin API's own listener (`adminListen`), e.g. "http://127.0.0.1:9026/". */
  adminUrl?: string;
  /** Stops accepting, finishes in-flight requests and DATA, closes the store. Idempotent. */
  close(): Promise<void>;
  /**
   * Puts a new configuration in effect (SIGHUP: src/server/reload/): the certificate and key read again,
   * and every setting that can change without a restart; the report says what changed and what takes a
   * restart. Rejects with a ReloadError (and changes nothing) when the certificate or admin token does
   * not check out.
   */
  applyConfig(next: ServerConfig): Promise<ReloadReport>;
}

export interface ServerDeps {
  clock?: Clock;
  /** Where IMAP passwords named by `passwordEnv` are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /**
   * One line per event; never carries a token. Default: silent. A Logger (observe/log.ts, as serve makes
   * for its --log-format) gets events, and scrubs the database password itself.
   */
  log?: Logger | ((line: string) => void);
  /** With config.catchAll: told of each inbox the first mail to its address made (the app's local mode). */
  onCatchAll?: (session: CreatedSession) => void;
}

/** `host` as it goes into a URL: IPv6 literals need brackets. */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns a listen failure into a sentence a user can act on. The errno code stays on the error (`code`,
 * plus `which`: "HTTP" or "SMTP") so a caller can retry on the next port after EADDRINUSE.
 */
function listenError(what: 'HTTP' | 'SMTP', host: string, port: number, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === 'EADDRINUSE'
      ? `${what} port ${port} on ${host} is already in use (try another port, or 0 for any free one)`
      : code === 'EACCES'
        ? `${what} port ${port} on ${host} needs privileges (use a port above 1023)`
        : code === 'EADDRNOTAVAIL'
          ? `${what}: address ${host} is not available on this machine`
          : `${what} could not listen on ${host}:${port}: ${describe(error)}`;
  return Object.assign(new Error(message), { code, which: what });
}

/** The parts startServer wires, as listening, reloading and closing need them. */
interface Parts {
  config: ServerConfig;
  log: Logger;
  storage: OpenedStorage;
  store: Store;
  ops: Operations;
  admin: AdminService;
  service: MailService;
  events: EventHub;
  /** The admin API's routes (on adminListen's listener, or the HTTP port's own extras). */
  adminExtras: RouteExtras;
  http: HttpFront;
  smtp: SmtpFront;
  imap?: ImapIntake;
  ssh?: RunningSsh;
  adminListener?: AdminListener;
}

/** The certificate and key STARTTLS offers, read and checked before anything is opened. */
async function startTls(config: ServerConfig): Promise<LoadedTls | undefined> {
  const tlsFiles: TlsFiles | undefined =
    config.tlsCertFile !== undefined && config.tlsKeyFile !== undefined
      ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile }
      : undefined;
  // Before anything is opened: a certificate that does not check out is a start error, not a late surprise.
  return tlsFiles ? await loadTls(tlsFiles) : undefined;
}

/**
 * The operations (limits, health, metrics) on the opened storage, and the store they time; the storage is
 * closed again when they cannot start.
 */
async function startOperations(
  config: ServerConfig,
  storage: OpenedStorage,
  log: Logger,
  clock: Clock,
  tls: LoadedTls | undefined,
): Promise<{ store: Store; ops: Operations }> {
  // With metrics, each store operation is timed (the storage latency histogram); told once ops is made.
  let timed: ((op: string, ms: number) => void) | undefined;
  const store = config.metrics ? timedStore(storage.store, (op, ms) => timed?.(op, ms)) : storage.store;
  let ops: Operations;
  try {
    ops = await createOperations({ config, store, log, clock, probesCheaply: storage.purgeInBackground });
  } catch (error) {
    await store.close().catch(() => undefined);
    await storage.release().catch(() => undefined);
    throw error;
  }
  const observer = ops.observer;
  timed = (op, ms) => observer.storageQuery(op, ms);
  observer.provide('sessionsActive', () => store.countSessions());
  if (storage.poolCounts) observer.provide('databasePool', storage.poolCounts);
  if (tls) observer.provide('tlsNotAfter', () => tls.notAfter);
  return { store, ops };
}

/** The admin service and the mail service on the store, told of the operations' limits and counters. */
function createServices(
  config: ServerConfig,
  deps: ServerDeps & { clock: Clock; log: Logger },
  store: Store,
  ops: Operations,
  imapActive: (accountId: number) => boolean,
): { admin: AdminService; service: MailService } {
  const { clock, log } = deps;
  const observer = ops.observer;
  const admin = createAdminService({ store, config, clock, log, onFreed: () => ops.freed() });
  const service = createMailService({
    store,
    config,
    clock,
    log,
    accountActive: imapActive,
    limits: ops.clientLimits,
    health: ops.health,
    onStored: (copies, bytes) => ops.stored(copies, bytes),
    onFreed: () => ops.freed(),
    onCatchAll: deps.onCatchAll,
    storageFull: () => ops.storageFull(),
    storageCaps: () => ops.limits().storage,
    onBlocksChanged: () => void admin.refreshBlocks(),
    onCreated: () => observer.sessionCreated(),
    onListening: (up) => observer.provide('pushUp', () => up),
  });
  return { admin, service };
}

/**
 * Purges expired sessions and logs how many went (or why it failed); a call while one is running does
 * nothing, so a slow purge does not pile up behind itself.
 */
export function expiredSessionsPurge(service: Pick<MailService, 'purgeExpired'>, log: Logger): () => Promise<void> {
  let purging = false;
  return async () => {
    if (purging) return; // a slow purge must not pile up behind itself
    purging = true;
    try {
      const gone = await service.purgeExpired();
      if (gone > 0)
        log.event({
          level: 'info',
          event: 'sessions.purged',
          text: `purged ${gone} expired session(s)`,
          jsonFields: { sessions: gone },
        });
    } catch (error) {
      log.event({
        level: 'error',
        event: 'sessions.purge_failed',
        text: `purge failed: ${describe(error)}`,
        jsonFields: { reason: describe(error) },
      });
    } finally {
      purging = false;
    }
  };
}

/**
 * The route extras: the event streams, and the admin API on the HTTP port, or with adminListen on that
 * listener only (adminExtras). The routes read them at each request: a reload may turn the admin API on
 * or off.
 */
function routeExtras(
  config: ServerConfig,
  adminApi: AdminApi | undefined,
  events: EventHub,
): { extras: RouteExtras; adminExtras: RouteExtras } {
  const extras: RouteExtras = { events, admin: config.adminListen ? undefined : adminApi };
  const adminExtras: RouteExtras = config.adminListen ? { admin: adminApi } : extras;
  return { extras, adminExtras };
}

/** The HTTP and SMTP fronts on the mail service (not listening yet). */
function createFronts(
  config: ServerConfig,
  parts: Pick<Parts, 'service' | 'log' | 'ops' | 'admin'>,
  extras: RouteExtras,
  tls: LoadedTls | undefined,
): { http: HttpFront; smtp: SmtpFront } {
  const { service, log, ops, admin } = parts;
  const http = createHttpFront(service, {
    log,
    extras,
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    trustProxy: config.trustProxy ?? false,
    trustedProxies: config.trustedProxies,
    hooks: ops.httpHooks,
  });
  // smtp-server's own cap is only an outer guard: the operations' connection limit refuses (and logs) first.
  // The blocks are asked first: a blocked client is not counted against any limit.
  const hooks = joinSmtpHooks(
    blockHooks(admin.rules, log, (kind) => ops.observer.blocked(kind)),
    ops.smtpHooks,
  );
  const smtp = createSmtpFront(service, config, { log, tls, hooks, maxClients: config.smtpMaxConnections + 50 });
  return { http, smtp };
}

/** Closes every front, then the operations, the service, the store and the storage's lock. */
async function closeParts(parts: Parts): Promise<void> {
  const { http, smtp, imap, ssh, adminListener, ops, log, service, store, storage } = parts;
  await Promise.allSettled([http.close(), smtp.close(), imap?.close(), ssh?.front.close(), adminListener?.close()]);
  await ops.close();
  const failed = (text: string) => (error: unknown) =>
    log.event({
      level: 'error',
      event: 'serve.close_failed',
      text: `${text} failed: ${describe(error)}`,
      jsonFields: { reason: describe(error) },
    });
  await service.close().catch(failed('service close'));
  await store.close().catch(failed('store close'));
  await storage.release().catch(failed(`removing ${storage.lockFile}`));
}

/**
 * Listens on HTTP, SMTP and adminListen, tells the storage where (its lock file), then starts SSH when
 * configured; on a failure everything is closed and the error thrown.
 */
async function listenAll(
  parts: Parts,
): Promise<{ httpUrl: string; httpPort: number; smtpHost: string; smtpPort: number }> {
  const { config, http, smtp, log, ops, storage } = parts;
  const httpHost = config.httpHost ?? config.host;
  const smtpHost = config.smtpHost ?? config.host;
  let httpPort: number;
  let smtpPort: number;
  try {
    httpPort = await http.listen(config.httpPort, httpHost).catch((e: unknown) => {
      throw listenError('HTTP', httpHost, config.httpPort, e);
    });
    smtpPort = await smtp.listen(config.smtpPort, smtpHost).catch((e: unknown) => {
      throw listenError('SMTP', smtpHost, config.smtpPort, e);
    });
    if (config.adminListen) {
      const timeouts = { headersTimeoutMs: config.httpHeadersTimeoutMs, requestTimeoutMs: config.httpRequestTimeoutMs };
      parts.adminListener = await startAdminListener(parts.service, {
        where: config.adminListen,
        extras: parts.adminExtras,
        log,
        answered: ops.httpHooks.answered,
        ...timeouts,
      });
    }
  } catch (error) {
    await closeParts(parts);
    throw error;
  }
  const httpUrl = `http://${urlHost(httpHost)}:${httpPort}/`;
  try {
    await storage.listening({ httpUrl, smtpHost, smtpPort });
  } catch (error) {
    await closeParts(parts);
    throw new Error(`cannot write ${storage.lockFile}: ${describe(error)}`);
  }
  if (config.sshPort !== undefined) {
    try {
      // ssh2 and the app's code are loaded only when SSH is on.
      const { startSsh } = await import('../ssh/start-ssh');
      const ssh = await startSsh(config, { host: httpHost, port: httpPort }, log, (ip) =>
        parts.admin.rules.refusal(ip),
      );
      parts.ssh = ssh;
      ops.observer.provide('ssh', () => ssh.front.stats());
    } catch (error) {
      await closeParts(parts);
      throw error;
    }
  }
  return { httpUrl, httpPort, smtpHost, smtpPort };
}

/** The start's lines: STARTTLS's certificate, and where the admin API and the metrics listen. */
function logStarted(parts: Parts, tls: LoadedTls | undefined, httpUrl: string): void {
  const { log, ops, config, adminListener } = parts;
  if (tls)
    log.event({
      level: 'info',
      event: 'smtp.tls',
      text: `smtp offers STARTTLS with ${tls.summary}`,
      jsonFields: { not_after: new Date(tls.notAfter).toISOString() },
    });
  const listen = (protocol: string, url: string, what: string) =>
    log.event({ level: 'info', event: 'listen', text: `${what} at ${url}`, jsonFields: { protocol, url } });
  if (adminListener) listen('admin', adminListener.url, 'admin API');
  if (ops.metricsUrl) listen('metrics', ops.metricsUrl, 'metrics');
  else if (config.metrics) listen('metrics', `${httpUrl}metrics`, 'metrics');
}

/** Starts fetching the accounts configured with IMAP; the IMAP code (and imapflow) is loaded only then. */
async function startImap(parts: Parts, env: NodeJS.ProcessEnv | undefined): Promise<void> {
  if (!parts.config.extmailAccounts.some((a) => a.imap)) return;
  const { startImapIntake } = await import('../imap/imap-intake');
  const intake = startImapIntake(parts.service, parts.config, parts.log, env);
  parts.imap = intake;
  parts.ops.observer.provide('imapAccounts', () => intake.states());
}

/** The purge timer (at the configured interval, restarted by a reload) and the blocks' re-read timer. */
interface Timers {
  purge: NodeJS.Timeout;
  blocks?: NodeJS.Timeout;
  restartPurge(): void;
}

function startTimers(parts: Parts, purge: () => Promise<void>): Timers {
  const purgeEvery = () => {
    const t = setInterval(() => void purge(), Math.max(1000, parts.config.purgeIntervalMs));
    t.unref();
    return t;
  };
  // Instances on a database hear of changed blocks at once (mail-notices.ts); this reads them again
  // now and then in case a notice was lost.
  const blocks = parts.storage.purgeInBackground
    ? setInterval(() => void parts.admin.refreshBlocks(), 60_000)
    : undefined;
  blocks?.unref();
  const timers: Timers = {
    purge: purgeEvery(),
    blocks,
    restartPurge() {
      clearInterval(timers.purge);
      timers.purge = purgeEvery();
    },
  };
  return timers;
}

/** What a reload (SIGHUP, reload/apply-config.ts) changes in the running parts. */
function liveParts(
  parts: Parts,
  adminTokens: NamedToken[],
  timers: Timers,
  env: NodeJS.ProcessEnv | undefined,
): LiveParts {
  const { config, log, smtp, http, ops, events, admin, adminExtras } = parts;
  let tokensInUse = adminTokens;
  return {
    config,
    async loadTls(files) {
      const fresh = await loadTls(files);
      const put = () => {
        smtp.reloadTls(fresh);
        ops.observer.provide('tlsNotAfter', () => fresh.notAfter);
      };
      return { summary: fresh.summary, put };
    },
    readAdminTokens: (files) => readAdminTokens(files, log),
    setAdminTokens(tokens) {
      logTokenChange(log, tokensInUse, tokens);
      tokensInUse = tokens;
      if (tokens.length === 0) adminExtras.admin = undefined;
      else if (adminExtras.admin) adminExtras.admin.setTokens(tokens);
      else adminExtras.admin = createAdminApi(tokens, admin, { log, events });
    },
    takeLimits() {
      ops.updateLimits(limitsOf(config));
      smtp.applyConfig(config);
      http.setTimeouts(config.httpHeadersTimeoutMs, config.httpRequestTimeoutMs);
      events.configure(eventHubBounds(config));
      timers.restartPurge();
    },
    async restartImap() {
      const old = parts.imap;
      parts.imap = undefined;
      await old?.close();
      await startImap(parts, env);
    },
  };
}

/** Opens the store, starts HTTP and SMTP on the configured host and ports (0 = any free port). */
export async function startServer(config: ServerConfig, deps: ServerDeps = {}): Promise<RunningServer> {
  const clock = deps.clock ?? systemClock;
  // Whatever a line says (a driver's error included), the database password never reaches the log.
  const log = asLogger(deps.log, secretScrubber(config.databaseUrl));
  const tls = await startTls(config);
  const adminTokens = await readAdminTokens(adminTokenFiles(config), log);
  const storage = await openStorage(config, log);
  const { store, ops } = await startOperations(config, storage, log, clock, tls);
  // The mail service asks whether an IMAP account is fetched; the intake starts once the fronts listen.
  let imapNow: () => ImapIntake | undefined = () => undefined;
  const imapActive = (id: number) => imapNow()?.isActive(id) ?? true;
  const { admin, service } = createServices(config, { ...deps, clock, log }, store, ops, imapActive);
  // In effect before the first connection is taken.
  await admin.refreshBlocks();

  const purge = expiredSessionsPurge(service, log);
  // A database's start does not wait on its sweep: start-up time must not grow with what is stored.
  if (storage.purgeInBackground) void purge();
  else await purge();

  const events = new EventHub(service, { ...eventHubBounds(config), now: clock });
  ops.observer.provide('eventStreams', () => events.size);
  const adminApi = adminTokens.length > 0 ? createAdminApi(adminTokens, admin, { log, events }) : undefined;
  const { extras, adminExtras } = routeExtras(config, adminApi, events);
  const fronts = createFronts(config, { service, log, ops, admin }, extras, tls);
  const parts: Parts = { config, log, storage, store, ops, admin, service, events, adminExtras, ...fronts };
  imapNow = () => parts.imap;
  const { httpUrl, httpPort, smtpHost, smtpPort } = await listenAll(parts);
  logStarted(parts, tls, httpUrl);
  await startImap(parts, deps.env);
  ops.start();
  const timers = startTimers(parts, purge);
  const live = liveParts(parts, adminTokens, timers, deps.env);
  let reloading: Promise<unknown> = Promise.resolve();

  let closing: Promise<void> | undefined;
  return {
    httpUrl,
    httpPort,
    smtpHost,
    smtpPort,
    service,
    ops,
    ssh: parts.ssh,
    adminUrl: parts.adminListener?.url,
    storage: storage.where,
    get config() {
      return { ...config, httpPort, smtpPort };
    },
    applyConfig(next) {
      // One reload at a time, in the order asked.
      const run = reloading.catch(() => undefined).then(() => applyConfig(live, next));
      reloading = run;
      return run;
    },
    close() {
      closing ??= (async () => {
        clearInterval(timers.purge);
        clearInterval(timers.blocks);
        await closeParts(parts);
      })();
      return closing;
    },
  };
}
