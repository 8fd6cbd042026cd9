/**
 * Local mode: with no service configured, the app runs the reference service in-process on loopback
 * (HTTP on any free port, SMTP on 2525 or the next free port up to 2535, else any), with its data in
 * the default XDG data directory so addresses and mail survive a restart. When a tempmail-tui service
 * already runs on that directory (`serve`, or the app in another terminal), the app uses that one:
 * two services on one directory would each keep their own index and hand out the same names.
 *
 * A borrowed service ends with the process that runs it (the first window quits, `serve` is stopped or
 * killed). The borrower watches the directory's lock (local-takeover.ts) and, once its holder is gone,
 * takes the service over: its own, on the same directory and the same ports where they are free, so the
 * client keeps its URL and the SMTP target the screen shows stays right. Of several borrowers, one wins
 * the lock and the others borrow from it.
 */
import { createServer } from 'node:net';
import { safeLine } from '../../text/safe-text';
import type { LockHolder } from '../../platform/data-lock';
import { LOCAL_SETTINGS } from './local-settings';
import { watchHolder, type HolderWatch } from './local-takeover';
import type { LocalServiceInfo } from './shell-types';

export interface LocalService extends LocalServiceInfo {
  readonly httpUrl: string;
  readonly smtpHost: string;
  readonly smtpPort: number;
  /** Set while the app uses a service that another process runs on the data dir: that process's pid. */
  readonly sharedPid?: number;
  /** Stops the service the app runs (its own, or one it took over); leaves a borrowed one running. */
  close(): Promise<void>;
  /**
   * Calls `listener` with each inbox the catch-all made (mail to a name nobody had made), while the service
   * is the app's own; a borrowed one tells its own app.
   */
  onCatchAll(listener: CatchAllListener): () => void;
  /** Calls `listener` after the service changed hands (taken over, or borrowed from a new holder). */
  onChange(listener: () => void): () => void;
  /**
   * New mail for the address of `token`, told at once while the service is the app's own (it runs in
   * this process: `live`); while it is borrowed from another process there is nothing to hear (`down`),
   * and the app's polling finds the mail. Follows the service when it changes hands. Stop with `stop()`.
   */
  watchInbox(token: string, events: { onMail(): void; onState(live: boolean): void }): { stop(): void };
}

/** Told of an inbox the catch-all made: its address, token and expiry (the app saves it). */
export type CatchAllListener = (made: { email: string; token: string; expiresAt: Date }) => void;

/** Where the service is, and what the app does about it. */
interface Where {
  httpUrl: string;
  smtpHost: string;
  smtpPort: number;
  /** A borrowed service: its holder, as the lock named it. */
  holder?: LockHolder;
  /** The app's own service: how to stop it. */
  stop?: () => Promise<void>;
  /** The app's own service: its mail service, which tells of new mail (MailService.watchInbox). */
  watchInbox?: (token: string, onMail: () => void) => () => void;
}

/** One watchInbox: what it was asked for, and its subscription to the service of the moment. */
interface InboxWatch {
  token: string;
  events: { onMail(): void; onState(live: boolean): void };
  unsubscribe?: () => void;
}

const HOST = '127.0.0.1';
/** SMTP ports tried in order; 0 (any free port) is the last resort. */
export const SMTP_PORTS = [2525, 2526, 2527, 2528, 2529, 2530, 2531, 2532, 2533, 2534, 2535, 0];

/** True when nothing listens on `port` (probed by listening briefly). */
export function portFree(port: number, host = HOST): Promise<boolean> {
  if (port === 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Starts the reference service for the app, or uses the one already running on its data directory;
 * `env` picks the directory (XDG, TEMPMAIL_TUI_HOME).
 */
export async function startLocalService(
  env: NodeJS.ProcessEnv = process.env,
  ports = SMTP_PORTS,
): Promise<LocalService> {
  const { appPaths } = await import('../../state/paths');
  const catchAll = new Set<CatchAllListener>();
  const tell: CatchAllListener = (made) => {
    for (const listener of catchAll) listener(made);
  };
  return new LocalHandle(env, ports, appPaths(env).data, await startOrBorrow(env, ports, [0], tell), catchAll, tell);
}

/** The app's own service, or the running one it borrows. */
async function startOrBorrow(
  env: NodeJS.ProcessEnv,
  smtpPorts: number[],
  httpPorts: number[],
  tell: CatchAllListener,
): Promise<Where> {
  const { DataDirInUseError } = await import('../../platform/data-lock');
  for (let attempt = 0; ; attempt++) {
    try {
      return await startOwn(env, smtpPorts, httpPorts, tell);
    } catch (error) {
      if (!(error instanceof DataDirInUseError)) throw error;
      const holder = await whenListening(error.dataDir, error.holder);
      // Gone while we waited (stopped, or died starting): the directory is free, start our own.
      if (!holder && attempt < 2) continue;
      return borrowRunning(error.dataDir, holder ?? error.holder);
    }
  }
}

/** A LocalService whose service can change hands while the app runs. */
class LocalHandle implements LocalService {
  private readonly listeners = new Set<() => void>();
  private readonly inboxWatches = new Set<InboxWatch>();
  private watch: HolderWatch | undefined;
  private closed = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly ports: number[],
    private readonly dataDir: string,
    private where: Where,
    private readonly catchAll: Set<CatchAllListener>,
    private readonly tell: CatchAllListener,
  ) {
    this.follow();
  }

  get httpUrl() {
    return this.where.httpUrl;
  }
  get smtpHost() {
    return this.where.smtpHost;
  }
  get smtpPort() {
    return this.where.smtpPort;
  }
  get sharedPid() {
    return this.where.holder?.pid;
  }

  onCatchAll(listener: CatchAllListener): () => void {
    this.catchAll.add(listener);
    return () => this.catchAll.delete(listener);
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  watchInbox(token: string, events: InboxWatch['events']): { stop(): void } {
    const watch: InboxWatch = { token, events };
    this.inboxWatches.add(watch);
    this.subscribe(watch);
    return {
      stop: () => {
        watch.unsubscribe?.();
        this.inboxWatches.delete(watch);
      },
    };
  }

  /** Subscribes `watch` to the service of the moment, and says whether it hears anything there. */
  private subscribe(watch: InboxWatch): void {
    watch.unsubscribe?.();
    watch.unsubscribe = this.where.watchInbox?.(watch.token, () => watch.events.onMail());
    watch.events.onState(watch.unsubscribe !== undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const watch of this.inboxWatches) watch.unsubscribe?.();
    this.inboxWatches.clear();
    this.watch?.stop();
    this.watch = undefined;
    await this.where.stop?.();
  }

  /** While borrowing, watch the holder; once it is gone, take over (or borrow from whoever did). */
  private follow(): void {
    this.watch?.stop();
    this.watch = undefined;
    const holder = this.where.holder;
    if (!holder || this.closed) return;
    this.watch = watchHolder(this.dataDir, holder, () => this.takeOver());
  }

  /** Resolves true when the service changed hands, false to be asked again shortly. */
  private async takeOver(): Promise<boolean> {
    const before = this.where;
    const httpPort = Number(new URL(before.httpUrl).port);
    // The same ports first: the client's URL and the SMTP target on screen stay right.
    const smtpPorts = [before.smtpPort, ...this.ports.filter((p) => p !== before.smtpPort)];
    let next: Where;
    try {
      next = await startOrBorrow(this.env, smtpPorts, [httpPort, 0], this.tell);
    } catch {
      return false; // a holder that does not answer yet, a port in a strange state: ask again
    }
    if (this.closed) {
      await next.stop?.();
      return true;
    }
    this.where = next;
    this.follow();
    for (const listener of this.listeners) listener();
    // Its own now (or another borrower's): the watches follow it, and (the client now on its URL) mail
    // that came while it changed hands is looked for.
    for (const watch of this.inboxWatches) {
      this.subscribe(watch);
      watch.events.onMail();
    }
    return true;
  }
}

async function startOwn(
  env: NodeJS.ProcessEnv,
  smtpPorts: number[],
  httpPorts: number[],
  tell: CatchAllListener,
): Promise<Where> {
  // Imported here, not at the top: a run against a remote service never loads the server code.
  const { startServer } = await import('../../server/serve/assemble');
  const { defaultServerConfig } = await import('../../server/config/server-config');
  // No per-client limits, and a catch-all: what local mode is for (local-settings.ts).
  const base = { ...defaultServerConfig(env), ...LOCAL_SETTINGS, host: HOST };
  let lastError: unknown;
  for (const httpPort of httpPorts) {
    for (const smtpPort of smtpPorts) {
      if (!(await portFree(smtpPort))) continue;
      try {
        // Silent: a log line written while Ink draws would tear the screen.
        const server = await startServer({ ...base, httpPort, smtpPort }, { log: () => undefined, onCatchAll: tell });
        return {
          httpUrl: server.httpUrl,
          smtpHost: server.smtpHost,
          smtpPort: server.smtpPort,
          stop: () => server.close(),
          watchInbox: (token, onMail) => server.service.watchInbox(token, onMail),
        };
      } catch (error) {
        // Taken between the probe and the listen: try the next port; anything else is fatal.
        if (!(error instanceof Error && /already in use/.test(error.message))) throw error;
        lastError = error;
        // The HTTP port is taken: every SMTP port would meet the same; try the next HTTP port.
        if ((error as { which?: string }).which === 'HTTP') break;
      }
    }
  }
  throw lastError instanceof Error ? lastError : new Error('no free SMTP port for the local service');
}

// A service that has the lock but is still starting writes its addresses within moments.
const LISTEN_WAIT_MS = 5_000;
const HEALTH_TIMEOUT_MS = 3_000;

/** The lock's holder once it lists its addresses; undefined when the lock went away or its process died. */
async function whenListening(dataDir: string, first: LockHolder): Promise<LockHolder | undefined> {
  const { holderAlive, readDataDirLock } = await import('../../platform/data-lock');
  const deadline = Date.now() + LISTEN_WAIT_MS;
  let holder: LockHolder | undefined = first;
  while (holder && holder.httpUrl === undefined && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    holder = await readDataDirLock(dataDir).catch(() => undefined);
    if (holder && !holderAlive(dataDir, holder)) holder = undefined;
  }
  return holder;
}

/** 0.0.0.0 and :: are where a service listens, not where to reach it: loopback is. */
function reachable(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === '0.0.0.0') return '127.0.0.1';
  if (bare === '::') return '::1';
  return bare;
}

/** Uses the service named by the data dir's lock, once it answers GET /health. */
async function borrowRunning(dataDir: string, holder: LockHolder): Promise<Where> {
  const who = `the data dir ${dataDir} is in use by a tempmail-tui service (pid ${holder.pid}`;
  const advice = 'stop it, or point the app at a service with --base-url';
  if (holder.httpUrl === undefined || holder.smtpHost === undefined || holder.smtpPort === undefined) {
    throw new Error(`${who}) that has not said where it listens; ${advice}`);
  }
  let url: URL;
  try {
    url = new URL(holder.httpUrl);
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    throw new Error(`${who}) whose lock names no usable URL (${safeLine(holder.httpUrl, 100)}); ${advice}`);
  }
  const host = reachable(url.hostname);
  url.hostname = host.includes(':') ? `[${host}]` : host;
  const httpUrl = url.href;
  if (!(await answers(httpUrl))) throw new Error(`${who}, ${safeLine(httpUrl, 100)}) that does not answer; ${advice}`);
  return { httpUrl, smtpHost: safeLine(reachable(holder.smtpHost), 100), smtpPort: holder.smtpPort, holder };
}

/** True when GET /health gets a JSON answer from a tempmail-tui service (503: up, storage failing). */
async function answers(httpUrl: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('health', httpUrl), { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) });
    const body = (await res.json()) as { status?: unknown };
    return (res.status === 200 || res.status === 503) && typeof body?.status === 'string';
  } catch {
    return false;
  }
}
