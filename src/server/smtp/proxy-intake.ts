/**
 * The PROXY protocol (v1 and v2) on the SMTP listener, from the load balancers in `trustedProxies` and
 * only from them. smtp-server's own `useProxy` reads v1 only, so its listener's `connection` handler is
 * taken over: a trusted peer's header is read (proxy-header.ts) with a byte limit and a deadline, and
 * the socket is handed to smtp-server with the header's client as its remote address, so limits, blocks,
 * logs and the stored client address see the real sender. Anyone else goes to smtp-server as before,
 * but a connection of theirs that opens with a PROXY header (a balancer left out of `trustedProxies`)
 * hears why it is refused, in one 421 line, and is closed: the header is never believed.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { SMTPServer } from 'smtp-server';
import { plainIp } from '../limits/ip-address';
import type { Logger } from '../observe/log';
import type { ProxyRefusal } from './smtp-hooks';
import { MAX_V2_BODY, opensProxyHeader, parseProxyHeader } from './proxy-header';

/** How long a trusted proxy has to send its header. */
export const PROXY_HEADER_DEADLINE_MS = 5000;
/** The most bytes a header may take (a v2 header with the largest body we accept). */
const MAX_HEADER_BYTES = 16 + MAX_V2_BODY;

export interface ProxyIntakeOptions {
  /** Peers whose header is read (IP addresses, as in `trustedProxies`). */
  trustedProxies: readonly string[];
  log: Logger;
  /** Hears of each connection refused over its header (counted in the metrics). */
  refused?: (client: string, reason: ProxyRefusal) => void;
  /** Sockets waiting for their header at once; past it a new one is closed. */
  maxWaiting: number;
  deadlineMs?: number;
}

export interface ProxyIntake {
  /** Destroys the sockets still waiting for a header (serve stops). */
  close(): void;
}

/** An id like smtp-server's own (base32 of 80 random bits). */
const sessionId = () =>
  BigInt(`0x${randomBytes(10).toString('hex')}`)
    .toString(32)
    .padStart(16, '0');

/**
 * Makes smtp-server refuse a connection that is not a trusted proxy's and opens with a PROXY header:
 * it hears one 421 line naming why, and is closed; the header is not read. Every other connection is
 * smtp-server's as before. smtp-server hands every connection it accepts to `connect`; the first bytes
 * are looked at before its parser sees them (whose own answer then finds the socket ended).
 */
function refuseUntrustedHeaders(
  smtp: SMTPServer,
  { log, refused }: Pick<ProxyIntakeOptions, 'log' | 'refused'>,
): SMTPServer['connect'] {
  const connect = smtp.connect.bind(smtp);
  smtp.connect = (socket, socketOptions) => {
    connect(socket, socketOptions);
    socket.prependOnceListener('data', (first: Buffer) => {
      if (!opensProxyHeader(first)) return;
      const peer = plainIp(socket.remoteAddress ?? 'unknown');
      log.event({
        level: 'warn',
        event: 'smtp.proxy_refused',
        text: `smtp refused a PROXY header from ${peer}: not in trustedProxies, so not believed`,
        fields: { client: peer, reason: 'untrusted_proxy' },
        foldKey: `smtp.proxy_refused untrusted ${peer}`,
      });
      refused?.(peer, 'untrusted_proxy');
      socket.end(`421 4.7.0 PROXY header refused: ${peer} is not a trusted proxy\r\n`);
      // A peer that keeps its side open is not waited for.
      setTimeout(() => socket.destroy(), 1000).unref();
    });
  };
  return connect;
}

/** Takes over `smtp`'s listener so trusted proxies' connections are read for a PROXY header first. */
export function acceptProxyHeaders(smtp: SMTPServer, options: ProxyIntakeOptions): ProxyIntake {
  const trusted = new Set(options.trustedProxies.map(plainIp));
  const waiting = new Set<Socket>();
  const connect = refuseUntrustedHeaders(smtp, options);
  if (trusted.size === 0) return { close() {} };
  const listener = smtp.server;
  const handlers = listener.listeners('connection') as ((socket: Socket) => void)[];
  listener.removeAllListeners('connection');
  listener.on('connection', (socket: Socket) => {
    const peer = plainIp(socket.remoteAddress ?? 'unknown');
    if (!trusted.has(peer)) {
      for (const handle of handlers) handle.call(listener, socket);
      return;
    }
    if (waiting.size >= options.maxWaiting) {
      options.log.event({
        level: 'warn',
        event: 'smtp.proxy_refused',
        text: `smtp closed a connection from proxy ${peer}: ${waiting.size} already wait for their PROXY header`,
        fields: { client: peer, reason: 'too_many_waiting' },
      });
      options.refused?.(peer, 'proxy_waiting');
      socket.destroy();
      return;
    }
    waiting.add(socket);
    readHeader(socket, options.deadlineMs ?? PROXY_HEADER_DEADLINE_MS, (outcome) => {
      waiting.delete(socket);
      if (outcome.kind === 'gone') return;
      if (outcome.kind === 'bad') {
        options.log.event({
          level: 'warn',
          event: 'smtp.proxy_refused',
          text: `smtp closed a connection from proxy ${peer}: ${outcome.reason}`,
          fields: { client: peer, reason: 'bad_proxy_header' },
          foldKey: `smtp.proxy_refused ${peer}`,
        });
        options.refused?.(peer, 'bad_proxy_header');
        socket.destroy();
        return;
      }
      // A LOCAL header (the proxy's health check) names no client: the proxy is the client.
      const client = outcome.client ?? { address: peer, port: socket.remotePort ?? 0 };
      connect(socket, { id: sessionId(), remoteAddress: plainIp(client.address), remotePort: client.port });
    });
  });
  return {
    close() {
      for (const socket of waiting) socket.destroy();
      waiting.clear();
    },
  };
}

type Outcome =
  | { kind: 'gone' }
  | { kind: 'bad'; reason: string }
  | { kind: 'ok'; client?: { address: string; port: number } };

/**
 * Reads a PROXY header from the start of `socket` (at most MAX_HEADER_BYTES, within `deadlineMs`), then
 * pauses it with what came after the header put back, for smtp-server to read: a client may pipeline.
 */
function readHeader(socket: Socket, deadlineMs: number, done: (outcome: Outcome) => void): void {
  let received = Buffer.alloc(0);
  let settled = false;
  const finish = (outcome: Outcome) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('close', onClose);
    socket.off('error', onError);
    done(outcome);
  };
  const timer = setTimeout(
    () => finish({ kind: 'bad', reason: `no PROXY header within ${deadlineMs / 1000} s` }),
    deadlineMs,
  );
  const onClose = () => finish({ kind: 'gone' });
  const onError = () => {
    socket.destroy();
    finish({ kind: 'gone' });
  };
  const onData = (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const header = parseProxyHeader(received.subarray(0, MAX_HEADER_BYTES));
    if (header.kind === 'more') return;
    if (header.kind === 'bad') return finish(header);
    socket.pause();
    const rest = received.subarray(header.length);
    if (rest.length > 0) socket.unshift(rest);
    finish({ kind: 'ok', client: header.client });
  };
  socket.on('data', onData);
  socket.on('close', onClose);
  socket.on('error', onError);
}
