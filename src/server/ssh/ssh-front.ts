/**
 * The SSH front door (docs/server/ssh.md): `ssh host` opens the app, `ssh host COMMAND` runs a scripting
 * command, on this service. Its own TCP listener counts connections and asks the admin blocks before
 * ssh2 sees a byte: a refused client reads one line and is closed, before any key exchange. Two
 * deadlines before a client is in: the handshake's (`handshakeTimeoutMs`, from accept to the end of the
 * first key exchange) and then the authentication's (`authTimeoutMs`, from there to logged in). Once in,
 * a connection with no shell or command running is closed after `authTimeoutMs` as well (`ssh -N` held a
 * connection slot for ever); an app session's own idle deadline covers it while one runs.
 */
import { createServer, type Socket } from 'node:net';
import { Server, type Connection } from 'ssh2';
import type { Logger } from '../observe/log';
import { plainIp } from '../limits/ip-address';
import { authenticate, type Identity } from './ssh-auth';
import { SshCounts, type SshLimits, type SshStats } from './ssh-limits';
import { handleSession } from './ssh-session';
import type { SshKv } from './ssh-kv';
import type { HostKey } from './host-key';
import { openUserData, type UserData } from './user-data';
import { refusalBytes } from './refusal';

export interface SshFrontOptions {
  hostKey: HostKey;
  kv: SshKv;
  /** This service's HTTP API, on loopback. */
  apiUrl: string;
  log: Logger;
  limits: SshLimits;
  idleTimeoutMs: number;
  /** From accept to the end of the first key exchange (default 10 s). */
  handshakeTimeoutMs?: number;
  /** From the end of the key exchange to logged in (default 20 s). */
  authTimeoutMs?: number;
  /** Why a client address is blocked (the admin API's blocks), or undefined. */
  blocked(ip: string): string | undefined;
}

export interface SshFront {
  listen(port: number, host: string): Promise<number>;
  stats(): SshStats;
  close(): Promise<void>;
}

const REFUSALS: Record<string, string> = {
  'too-many-connections': 'too many SSH connections to this service; try again later',
  'too-many-from-client': 'too many SSH connections from your address; close one and try again',
  blocked: 'connections from your address are refused',
};

/**
 * Logs a client refused (or cut) for `why`: the first of each reason and client a second, then the count
 * of its repeats (observe/log.ts), so a client looping refused connections writes no more than that.
 */
function logRefused(log: Logger, ip: string, why: string): void {
  log.event({
    level: 'info',
    event: 'ssh.refused',
    text: `ssh refused ${ip}: ${why}`,
    fields: { client: ip, reason: why },
    fold: true,
    foldKey: `${why} ${ip}`,
  });
}

/**
 * A client is in: its login counted and logged, its user data read (the addresses a key keeps), and its
 * channels handled: a session runs the app or a command; forwarding of every kind is refused.
 */
function serveLogin(
  options: SshFrontOptions,
  counts: SshCounts,
  client: Connection,
  ip: string,
  who: Identity,
  running: { busy(): void; idle(): void },
): void {
  const { log } = options;
  counts.stats.logins[who.kind]++;
  const name = who.kind === 'key' ? `key ${who.fingerprint}` : undefined;
  log.event({
    level: 'info',
    event: 'ssh.login',
    text: `ssh login from ${ip}: ${who.kind === 'key' ? who.fingerprint : 'anonymous'}`,
    fields: { client: ip, login: who.kind },
  });
  // Read while the client opens its session: the handlers below must be there before its first request.
  const user: Promise<UserData> = openUserData(options.kv, name, log);
  user.catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    log.event({
      level: 'error',
      event: 'ssh.read_failed',
      text: `ssh: reading a user's addresses failed: ${why}`,
      jsonFields: { reason: why },
    });
    client.end();
  });
  client.on('request', (_accept, reject) => reject?.());
  client.on('tcpip', (_accept, reject) => reject());
  client.on('openssh.streamlocal', (_accept, reject) => reject());
  let runs = 0;
  client.on('session', (accept) => {
    const session = accept();
    // A shell or a command started ends the no-session deadline; the last one closed starts it again.
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      if (runs++ === 0) running.busy();
    };
    session.prependListener('shell', start);
    session.prependListener('exec', start);
    session.once('close', () => {
      if (started && --runs === 0) running.idle();
    });
    handleSession(session, {
      apiUrl: options.apiUrl,
      user,
      idleTimeoutMs: options.idleTimeoutMs,
      log,
      openApp: () => {
        const open = counts.openSession(name);
        if (!open) logRefused(log, ip, 'too-many-sessions-for-key');
        return open;
      },
      closedApp: () => counts.closeSession(name),
    });
  });
}

type Phase = 'handshake-timeout' | 'auth-timeout' | 'no-session';

/**
 * Each connection's deadline until its client is in: the handshake's from accept, then, once the first
 * key exchange is done, the authentication's; once in, the no-session one while no shell or command
 * runs. Past one, the socket is closed and the refusal counted and logged by its reason.
 */
function connectionDeadlines(options: SshFrontOptions, counts: SshCounts) {
  const pending = new Map<Socket, { timer: NodeJS.Timeout; phase: Phase }>();
  const arm = (socket: Socket, ip: string, phase: Phase) => {
    const ms =
      phase === 'handshake-timeout' ? (options.handshakeTimeoutMs ?? 10_000) : (options.authTimeoutMs ?? 20_000);
    const timer = setTimeout(() => {
      pending.delete(socket);
      logRefused(options.log, ip, counts.refuse(phase));
      socket.destroy();
    }, ms);
    pending.set(socket, { timer, phase });
  };
  const clear = (socket: Socket) => {
    clearTimeout(pending.get(socket)?.timer);
    pending.delete(socket);
  };
  return {
    /** A socket accepted: its handshake deadline starts. */
    accepted: (socket: Socket, ip: string) => arm(socket, ip, 'handshake-timeout'),
    /** A key exchange done: the first one ends the handshake deadline and starts the authentication's. */
    exchanged(socket: Socket, ip: string) {
      if (pending.get(socket)?.phase !== 'handshake-timeout') return;
      clear(socket);
      arm(socket, ip, 'auth-timeout');
    },
    /** Logged in with nothing running, or the last shell or command closed: its no-session deadline starts. */
    idle(socket: Socket, ip: string) {
      clear(socket);
      arm(socket, ip, 'no-session');
    },
    /** A shell or command running, or gone. */
    clear,
  };
}

export function createSshFront(options: SshFrontOptions): SshFront {
  const counts = new SshCounts(options.limits);
  const { log } = options;
  // Open sockets by "address port": how ssh2's connection (which names only those) finds its socket.
  const sockets = new Map<string, Socket>();
  const deadlines = connectionDeadlines(options, counts);
  const peerKey = (ip: string | undefined, port: number | undefined) => `${ip} ${port}`;
  const ssh = new Server({ hostKeys: [options.hostKey.pem], ident: 'tempmail-tui' }, (client, info) =>
    onClient(client, plainIp(info.ip), peerKey(info.ip, info.port)),
  );
  const onClient = (client: Connection, ip: string, peer: string) => {
    let who: Identity | undefined;
    client.on('error', () => undefined);
    const socket = sockets.get(peer);
    client.on('handshake', () => socket && deadlines.exchanged(socket, ip));
    client.on('authentication', (ctx) => authenticate(ctx, (identity) => (who = identity)));
    client.on('ready', () => {
      const running = {
        busy: () => socket && deadlines.clear(socket),
        idle: () => socket && deadlines.idle(socket, ip),
      };
      running.idle();
      serveLogin(options, counts, client, ip, who ?? { kind: 'anonymous' }, running);
    });
  };
  const tcp = createServer({ pauseOnConnect: false }, (socket) => admit(socket));
  const admit = (socket: Socket) => {
    const ip = plainIp(socket.remoteAddress ?? '');
    socket.on('error', () => undefined);
    const why = options.blocked(ip) !== undefined ? counts.refuse('blocked') : counts.connect(ip);
    if (why !== undefined) {
      logRefused(log, ip, why);
      socket.end(refusalBytes(REFUSALS[why]!));
      socket.setTimeout(5000, () => socket.destroy());
      return;
    }
    const peer = peerKey(socket.remoteAddress, socket.remotePort);
    sockets.set(peer, socket);
    // A key's frame goes out at once: with Nagle's algorithm a small write waits for the client's
    // delayed ACK of the one before (~40 ms on Linux, more under load), as OpenSSH's own server avoids.
    socket.setNoDelay(true);
    deadlines.accepted(socket, ip);
    socket.on('close', () => {
      deadlines.clear(socket);
      if (sockets.get(peer) === socket) sockets.delete(peer);
      counts.disconnect(ip);
    });
    ssh.injectSocket(socket);
  };
  return {
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, host, () => {
          tcp.off('error', reject);
          const address = tcp.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    stats: () => counts.stats,
    close: async () => {
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const socket of sockets.values()) socket.destroy();
      await closed;
      await options.kv.close();
    },
  };
}
