/**
 * SMTP intake of the reference service (smtp-server). It rejects early (docs/architecture.md, "How a
 * message travels"): recipients in RCPT TO through the service, size through the SIZE extension, and
 * it answers 250 to DATA only after the service says the message is durably stored (smtp-delivery.ts).
 * It depends on
 * nothing but the service contract.
 */
import {
  SMTPServer,
  type SMTPServerAddress,
  type SMTPServerDataStream,
  type SMTPServerOptions,
  type SMTPServerSession,
} from 'smtp-server';
import { asLogger, type LogFields, type Logger, type LogLevel } from '../observe/log';
import type { ServerConfig } from '../config/server-config';
import type { MailService } from '../service/service-types';
import { collectMessage, InflightBudget } from './collect-message';
import { ConnectionWatch, peerOf } from './connection-watch';
import { senderOf, smtpDelivery } from './smtp-delivery';
import type { SmtpHooks } from './smtp-hooks';
import { acceptProxyHeaders } from './proxy-intake';
import { listed, ourAddresses, reply, rewordSizeRefusals } from './smtp-replies';
import { SmtpTimeLimits } from './time-limits';
import type { LoadedTls } from './tls-files';

/** What a client hears while serve stops: a connection closed (421), a command refused for now (421, try again). */
const SHUTTING_DOWN = '4.3.2 Service shutting down';
const SHUTTING_DOWN_RETRY = `${SHUTTING_DOWN}, try again later`;

export interface SmtpFrontOptions {
  /** A Logger gets events with the client, TLS and message id as fields; a plain function gets lines. */
  log?: Logger | ((line: string) => void);
  /** Limits, metrics, health: asked at connect, EHLO, MAIL FROM and RCPT TO, told of what happened. */
  hooks?: SmtpHooks;
  /** How long close() waits for a message still being received before cutting it off. Default 10 s. */
  closeGraceMs?: number;
  /**
   * smtp-server's own cap on connections (default 200), an outer guard: the limits in `hooks.connect`
   * refuse (and log) before it is reached.
   */
  maxClients?: number;
  /** A certificate and key to offer through STARTTLS; without, STARTTLS is not offered. */
  tls?: LoadedTls;
}

export interface SmtpFront {
  server: SMTPServer;
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, says 421 to idle connections, lets a DATA in progress finish, then resolves. */
  close(): Promise<void>;
  /** Offers `tls` to the next STARTTLS (connections already upgraded keep theirs). Only with options.tls. */
  reloadTls(tls: LoadedTls): void;
  /** Takes `config`'s domains and limits for the next connections and messages (a reload: src/server/reload/). */
  applyConfig(config: ServerConfig): void;
}

/** What one SMTP front's handlers share: its settings, what is worked out from the config, its connections. */
interface Intake {
  service: MailService;
  config: ServerConfig;
  options: SmtpFrontOptions;
  log: Logger;
  hooks: SmtpHooks;
  watch: ConnectionWatch;
  limits: SmtpTimeLimits;
  delivery: ReturnType<typeof smtpDelivery>;
  /** What is worked out from `config` once; a reload works it out again (applyConfig). */
  isOurs: (address: string) => boolean;
  tooBig: string;
  budget: InflightBudget;
  /** Sessions (by id) that are inside DATA: close() lets them finish. */
  inData: Set<string>;
  /** Deliveries being stored: close() waits for them. */
  pending: Set<Promise<unknown>>;
  closing: boolean;
  /** smtp-server's open connections. */
  connections(): SMTPServer['connections'];
}

const OVER_BUDGET = '4.3.1 Too much mail arriving at once, try again later';

/** The 552 reply's text for a message over `maxMessageBytes`. */
function tooBigText(config: Pick<ServerConfig, 'maxMessageBytes'>): string {
  return `5.3.4 Message too big (limit ${config.maxMessageBytes} bytes)`;
}

/** One line about `session`, with its client and TLS as fields. */
function note(
  log: Logger,
  session: SMTPServerSession,
  level: LogLevel,
  event: string,
  text: string,
  reason?: string,
  more?: LogFields,
): void {
  // The size and recipients are in the sentence already: fields for JSON only.
  const { size, recipients, ...fields } = more ?? {};
  log.event({
    level,
    event,
    text,
    fields: { client: session.remoteAddress, tls: Boolean(session.secure), ...fields, reason },
    jsonFields: { size, recipients },
  });
}

/** A refusal of a message or recipient: its line, and the hooks (metrics) hear its reason. */
function refused(x: Intake, session: SMTPServerSession, text: string, reason: string, level: LogLevel = 'info'): void {
  note(x.log, session, level, 'smtp.refused', text, reason);
  x.hooks.refused?.(peerOf(session), reason);
}

/** Refusals that are our trouble or a limit, not a verdict on the mail: folded in the log (warn). */
export function refusalLevel(code: number, reason: string): LogLevel {
  return code === 421 || code === 451 || reason.startsWith('rate_limit') || reason.startsWith('storage')
    ? 'warn'
    : 'info';
}

/** A message is answered; when shutting down, the connection is told so instead of waiting for more. */
function release(x: Intake, session: SMTPServerSession): void {
  x.inData.delete(session.id);
  // Its time ran out while the message was stored: now that it has its answer, it is closed.
  if (x.limits.answered(session)) return;
  if (!x.closing) return;
  for (const connection of x.connections()) {
    // A 421 reply makes smtp-server close the connection itself (after the 250 already written).
    if (connection.session === session) connection.send(421, SHUTTING_DOWN);
  }
}

/** One log line per refused recipient, so "why didn't my mail arrive?" has an answer in the log. */
async function checkRcpt(x: Intake, address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
  const refusal = await rcptRefusal(x, address, session);
  if (!refusal) return;
  const text = `smtp refused RCPT ${address.address} from ${senderOf(session)}: ${refusal.responseCode} ${refusal.message}`;
  refused(x, session, text, refusal.reason, refusalLevel(refusal.responseCode, refusal.reason));
  throw refusal;
}

/** Why `rcpt` is refused (an SMTP reply), or undefined when it is accepted. */
async function rcptRefusal(
  x: Intake,
  address: SMTPServerAddress,
  session: SMTPServerSession,
): Promise<ReturnType<typeof reply> | undefined> {
  const { config } = x;
  const rcpt = address.address;
  if (x.closing) return reply(421, SHUTTING_DOWN_RETRY, 'shutting_down');
  const known = session.envelope.rcptTo.some((r) => r.address.toLowerCase() === rcpt.toLowerCase());
  if (!known && session.envelope.rcptTo.length >= config.maxRecipients) {
    return reply(452, `4.5.3 Too many recipients (at most ${config.maxRecipients} per message)`, 'too_many_recipients');
  }
  const args = session.envelope.mailFrom ? (session.envelope.mailFrom.args as Record<string, string> | false) : false;
  const size = Number(args ? args.SIZE : 0) || 0;
  const hooked = await x.hooks.rcpt?.(peerOf(session), rcpt, session.envelope.rcptTo.length, size);
  if (hooked) return reply(hooked.code, hooked.text, hooked.reason);
  return x.delivery.recipientRefusal(address, session, x.isOurs);
}

/** DATA: the body collected within its budget and time, then stored; 250 once the store says it is kept. */
function receiveData(
  x: Intake,
  stream: SMTPServerDataStream,
  session: SMTPServerSession,
  callback: (err?: Error | null, message?: string) => void,
): void {
  x.inData.add(session.id);
  const collector = collectMessage(stream, x.budget);
  const received = x.limits.dataStarted(session, () => collector.cut());
  // The store may hold its next batch of deliveries a moment for this message (Postgres). Every way a
  // body ends (its dot, an error, a cut) settles `done`.
  const arrived = x.service.deliveryComing();
  void collector.done.then((result) => {
    arrived();
    // The client vanished mid-message, or its time ran out: nothing was acknowledged, nothing is stored.
    if (result.kind === 'gone') return release(x, session);
    received();
    const who = () => `from ${senderOf(session)} for ${listed(session.envelope.rcptTo.map((r) => r.address))}`;
    if (result.kind === 'too-large') {
      refused(
        x,
        session,
        `smtp refused oversize message (${result.bytes} bytes ${who()}): 552 ${x.tooBig}`,
        'too_large',
      );
      callback(reply(552, x.tooBig, 'too_large'));
      return release(x, session);
    }
    if (result.kind === 'over-budget') {
      refused(
        x,
        session,
        `smtp refused DATA (${result.bytes} bytes ${who()}): 451 ${OVER_BUDGET} (${x.budget.limit} bytes of messages in flight at once)`,
        'over_budget',
        'warn',
      );
      callback(reply(451, OVER_BUDGET, 'over_budget'));
      return release(x, session);
    }
    const job = x.delivery.store(result.raw, session);
    x.pending.add(job);
    job
      .then(
        (message) => callback(null, message),
        (error: Error) => callback(error),
      )
      .finally(() => {
        result.release();
        x.pending.delete(job);
        release(x, session);
      });
  });
}

/** MAIL FROM: refused while shutting down, else as the hooks (limits, blocks, storage cap) say. */
function checkMailFrom(
  x: Intake,
  address: SMTPServerAddress,
  session: SMTPServerSession,
  callback: (err?: Error | null) => void,
): void {
  const sender = address.address || '<>';
  if (x.closing) {
    refused(x, session, `smtp refused MAIL FROM ${sender}: 421 ${SHUTTING_DOWN_RETRY}`, 'shutting_down', 'warn');
    return callback(reply(421, SHUTTING_DOWN_RETRY, 'shutting_down'));
  }
  if (!x.hooks.mailFrom) return callback();
  x.hooks.mailFrom(peerOf(session), address.address).then(
    (refusal) => {
      if (!refusal) return callback();
      refused(
        x,
        session,
        `smtp refused MAIL FROM ${sender}: ${refusal.code} ${refusal.text}`,
        refusal.reason,
        refusalLevel(refusal.code, refusal.reason),
      );
      callback(reply(refusal.code, refusal.text, refusal.reason));
    },
    (error: Error) => callback(error),
  );
}

/** smtp-server's options: receive-only, our limits, and the handlers above. */
function serverOptions(x: Intake): SMTPServerOptions {
  const { config, options, hooks, watch, limits } = x;
  return {
    name: config.domains[0] ?? 'localhost',
    banner: 'tempmail-tui reference service ready',
    // Receive-only: no AUTH to offer. STARTTLS when a certificate was given (most senders prefer it).
    secure: false,
    authOptional: true,
    disabledCommands: options.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
    ...(options.tls ? { key: options.tls.key, cert: options.tls.cert } : {}),
    disableReverseLookup: true,
    size: config.maxMessageBytes,
    socketTimeout: config.smtpSocketTimeoutMs,
    closeTimeout: options.closeGraceMs ?? 10_000,
    maxClients: options.maxClients ?? 200,
    logger: false,
    onConnect(session, callback) {
      const refusal = hooks.connect?.(peerOf(session));
      if (refusal) return callback(reply(refusal.code, refusal.text, refusal.reason));
      // The greeting (and so any command) waits for this callback: the connection is worded before MAIL FROM.
      for (const connection of x.connections()) {
        if (connection.session !== session) continue;
        rewordSizeRefusals(connection, x.tooBig, (text) => refused(x, session, text, 'too_large'));
        watch.attach(connection);
        limits.connected(connection);
      }
      callback();
    },
    onSecure(_socket, session, callback) {
      // Called once a STARTTLS handshake succeeded (the service offers no implicit TLS).
      watch.secured(session);
      callback();
    },
    onClose(session) {
      limits.closed(session.id);
      watch.closed(session);
      hooks.closed?.(peerOf(session));
    },
    onRcptTo(address, session, callback) {
      checkRcpt(x, address, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
    onMailFrom: (address, session, callback) => checkMailFrom(x, address, session, callback),
    onData: (stream, session, callback) => receiveData(x, stream, session, callback),
  };
}

/**
 * Connection errors (resets, timeouts, garbage) arrive here; without a listener they would crash us. A
 * failed listen arrives here too, but listen() rejects with it and the caller words it: not logged twice.
 */
function logConnectionError(
  log: Logger,
  error: NodeJS.ErrnoException & { remoteAddress?: string; meta?: { stage?: unknown; tlsProtocol?: unknown } },
): void {
  // A failed STARTTLS handshake is the watch's to report (with its reason), once.
  if (error.syscall === 'listen' || ConnectionWatch.isHandshakeError(error)) return;
  log.event({
    level: 'warn',
    event: 'smtp.connection_error',
    text: `smtp connection error: ${error.message}`,
    fields: { client: error.remoteAddress, reason: error.code },
  });
}

/** Builds the SMTP front end over a MailService. */
export function createSmtpFront(service: MailService, config: ServerConfig, options: SmtpFrontOptions = {}): SmtpFront {
  const log = asLogger(options.log);
  const hooks = options.hooks ?? {};
  // Read by each new connection: a reload changes the values in place.
  const timeLimits = { sessionMs: config.smtpSessionTimeoutMs, dataMs: config.smtpDataTimeoutMs };
  const x: Intake = {
    service,
    config,
    options,
    log,
    hooks,
    watch: new ConnectionWatch(hooks),
    limits: new SmtpTimeLimits(timeLimits, log),
    delivery: smtpDelivery({ service, hooks, note: (...args) => note(log, ...args) }),
    isOurs: ourAddresses(config),
    tooBig: tooBigText(config),
    // Never below one message of the size limit, or such a message could never be taken.
    budget: new InflightBudget(Math.max(config.smtpInflightBytes, config.maxMessageBytes)),
    inData: new Set<string>(),
    pending: new Set<Promise<unknown>>(),
    closing: false,
    connections: () => server.connections,
  };
  const server = new SMTPServer(serverOptions(x));
  server.on('error', (error) => logConnectionError(log, error));

  // From a load balancer in trustedProxies, a PROXY header names the client (proxy-intake.ts).
  const proxies = acceptProxyHeaders(server, {
    trustedProxies: config.trustedProxies,
    log,
    refused: (client, reason) => hooks.proxyRefused?.(client, reason),
    maxWaiting: options.maxClients ?? 200,
  });

  let closed: Promise<void> | undefined;
  return {
    server,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.server.once('error', reject);
        server.listen(port, host, () => {
          server.server.off('error', reject);
          const address = server.server.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      });
    },
    applyConfig(next) {
      x.isOurs = ourAddresses(next);
      x.tooBig = tooBigText(next);
      Object.assign(server.options, {
        size: next.maxMessageBytes,
        socketTimeout: next.smtpSocketTimeoutMs,
        name: next.domains[0] ?? 'localhost',
      });
      x.budget.limit = Math.max(next.smtpInflightBytes, next.maxMessageBytes);
      Object.assign(timeLimits, { sessionMs: next.smtpSessionTimeoutMs, dataMs: next.smtpDataTimeoutMs });
    },
    reloadTls(tls) {
      if (!options.tls) throw new Error('STARTTLS is not offered: start with a certificate to reload one');
      server.updateSecureContext({ key: tls.key, cert: tls.cert });
    },
    close() {
      closed ??= (async () => {
        x.closing = true;
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        proxies.close();
        // Idle connections would otherwise hold the close for the whole grace time.
        for (const connection of [...server.connections]) {
          // A 421 reply makes smtp-server close the connection itself.
          if (!x.inData.has(connection.session?.id)) connection.send(421, SHUTTING_DOWN);
        }
        await Promise.allSettled([...x.pending]);
        await done;
      })();
      return closed;
    },
  };
}
