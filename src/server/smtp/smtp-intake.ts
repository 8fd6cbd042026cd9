/**
 * SMTP intake of the reference service (smtp-server). It rejects early (docs/architecture.md, "How a
 * message travels"): recipients in RCPT TO through the service, size through the SIZE extension, and
 * it answers 250 to DATA only after the service says the message is durably stored (smtp-delivery.ts).
 * It depends on
 * nothing but the service contract.
 */
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
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

/** Builds the SMTP front end over a MailService. */
export function createSmtpFront(service: MailService, config: ServerConfig, options: SmtpFrontOptions = {}): SmtpFront {
  const log = asLogger(options.log);
  const hooks = options.hooks ?? {};
  const watch = new ConnectionWatch(hooks);
  /** One line about `session`, with its client and TLS as fields. */
  const note = (
    session: SMTPServerSession,
    level: LogLevel,
    event: string,
    text: string,
    reason?: string,
    more?: LogFields,
  ) => {
    // The size and recipients are in the sentence already: fields for JSON only.
    const { size, recipients, ...fields } = more ?? {};
    log.event({
      level,
      event,
      text,
      fields: { client: session.remoteAddress, tls: Boolean(session.secure), ...fields, reason },
      jsonFields: { size, recipients },
    });
  };
  /** A refusal of a message or recipient: its line, and the hooks (metrics) hear its reason. */
  const refused = (session: SMTPServerSession, text: string, reason: string, level: LogLevel = 'info') => {
    note(session, level, 'smtp.refused', text, reason);
    hooks.refused?.(peerOf(session), reason);
  };
  // What is worked out from `config` once; a reload works it out again (applyConfig below).
  let isOurs = ourAddresses(config);
  let tooBig = `5.3.4 Message too big (limit ${config.maxMessageBytes} bytes)`;
  /** Refusals that are our trouble or a limit, not a verdict on the mail: folded in the log. */
  const levelOf = (code: number, reason: string): LogLevel =>
    code === 421 || code === 451 || reason.startsWith('rate_limit') || reason.startsWith('storage') ? 'warn' : 'info';
  const overBudget = '4.3.1 Too much mail arriving at once, try again later';
  // Never below one message of the size limit, or such a message could never be taken.
  const budget = new InflightBudget(Math.max(config.smtpInflightBytes, config.maxMessageBytes));
  /** Sessions (by id) that are inside DATA: close() lets them finish. */
  const inData = new Set<string>();
  const delivery = smtpDelivery({ service, hooks, note });
  const pending = new Set<Promise<unknown>>();
  let closing = false;
  // Read by each new connection: a reload changes the values in place.
  const timeLimits = { sessionMs: config.smtpSessionTimeoutMs, dataMs: config.smtpDataTimeoutMs };
  const limits = new SmtpTimeLimits(timeLimits, log);

  /** A message is answered; when shutting down, the connection is told so instead of waiting for more. */
  function release(session: SMTPServerSession): void {
    inData.delete(session.id);
    // Its time ran out while the message was stored: now that it has its answer, it is closed.
    if (limits.answered(session)) return;
    if (!closing) return;
    for (const connection of server.connections) {
      // A 421 reply makes smtp-server close the connection itself (after the 250 already written).
      if (connection.session === session) connection.send(421, SHUTTING_DOWN);
    }
  }

  /** One log line per refused recipient, so "why didn't my mail arrive?" has an answer in the log. */
  async function checkRcpt(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const refusal = await rcptRefusal(address, session);
    if (!refusal) return;
    const text = `smtp refused RCPT ${address.address} from ${senderOf(session)}: ${refusal.responseCode} ${refusal.message}`;
    refused(session, text, refusal.reason, levelOf(refusal.responseCode, refusal.reason));
    throw refusal;
  }

  /** Why `rcpt` is refused (an SMTP reply), or undefined when it is accepted. */
  async function rcptRefusal(
    address: SMTPServerAddress,
    session: SMTPServerSession,
  ): Promise<ReturnType<typeof reply> | undefined> {
    const rcpt = address.address;
    if (closing) return reply(421, SHUTTING_DOWN_RETRY, 'shutting_down');
    const known = session.envelope.rcptTo.some((r) => r.address.toLowerCase() === rcpt.toLowerCase());
    if (!known && session.envelope.rcptTo.length >= config.maxRecipients) {
      return reply(
        452,
        `4.5.3 Too many recipients (at most ${config.maxRecipients} per message)`,
        'too_many_recipients',
      );
    }
    const args = session.envelope.mailFrom ? (session.envelope.mailFrom.args as Record<string, string> | false) : false;
    const size = Number(args ? args.SIZE : 0) || 0;
    const hooked = await hooks.rcpt?.(peerOf(session), rcpt, session.envelope.rcptTo.length, size);
    if (hooked) return reply(hooked.code, hooked.text, hooked.reason);
    return delivery.recipientRefusal(address, session, isOurs);
  }

  function onData(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ): void {
    inData.add(session.id);
    const collector = collectMessage(stream, budget);
    const received = limits.dataStarted(session, () => collector.cut());
    // The store may hold its next batch of deliveries a moment for this message (Postgres). Every way a
    // body ends (its dot, an error, a cut) settles `done`.
    const arrived = service.deliveryComing();
    void collector.done.then((result) => {
      arrived();
      // The client vanished mid-message, or its time ran out: nothing was acknowledged, nothing is stored.
      if (result.kind === 'gone') return release(session);
      received();
      const who = () => `from ${senderOf(session)} for ${listed(session.envelope.rcptTo.map((r) => r.address))}`;
      if (result.kind === 'too-large') {
        refused(session, `smtp refused oversize message (${result.bytes} bytes ${who()}): 552 ${tooBig}`, 'too_large');
        callback(reply(552, tooBig, 'too_large'));
        return release(session);
      }
      if (result.kind === 'over-budget') {
        refused(
          session,
          `smtp refused DATA (${result.bytes} bytes ${who()}): 451 ${overBudget} (${budget.limit} bytes of messages in flight at once)`,
          'over_budget',
          'warn',
        );
        callback(reply(451, overBudget, 'over_budget'));
        return release(session);
      }
      const job = delivery.store(result.raw, session);
      pending.add(job);
      job
        .then(
          (message) => callback(null, message),
          (error: Error) => callback(error),
        )
        .finally(() => {
          result.release();
          pending.delete(job);
          release(session);
        });
    });
  }

  const server = new SMTPServer({
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
      for (const connection of server.connections) {
        if (connection.session !== session) continue;
        rewordSizeRefusals(connection, tooBig, (text) => refused(session, text, 'too_large'));
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
      checkRcpt(address, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
    onMailFrom(address, session, callback) {
      const sender = address.address || '<>';
      if (closing) {
        refused(session, `smtp refused MAIL FROM ${sender}: 421 ${SHUTTING_DOWN_RETRY}`, 'shutting_down', 'warn');
        return callback(reply(421, SHUTTING_DOWN_RETRY, 'shutting_down'));
      }
      if (!hooks.mailFrom) return callback();
      hooks.mailFrom(peerOf(session), address.address).then(
        (refusal) => {
          if (!refusal) return callback();
          refused(
            session,
            `smtp refused MAIL FROM ${sender}: ${refusal.code} ${refusal.text}`,
            refusal.reason,
            levelOf(refusal.code, refusal.reason),
          );
          callback(reply(refusal.code, refusal.text, refusal.reason));
        },
        (error: Error) => callback(error),
      );
    },
    onData,
  });
  // Connection errors (resets, timeouts, garbage) arrive here; without a listener they would crash us.
  // A failed listen arrives here too, but listen() rejects with it and the caller words it: not logged twice.
  server.on(
    'error',
    (error: NodeJS.ErrnoException & { remoteAddress?: string; meta?: { stage?: unknown; tlsProtocol?: unknown } }) => {
      // A failed STARTTLS handshake is the watch's to report (with its reason), once.
      if (error.syscall === 'listen' || ConnectionWatch.isHandshakeError(error)) return;
      log.event({
        level: 'warn',
        event: 'smtp.connection_error',
        text: `smtp connection error: ${error.message}`,
        fields: { client: error.remoteAddress, reason: error.code },
      });
    },
  );

  // From a load balancer in trustedProxies, a PROXY header names the client (proxy-intake.ts).
  const proxies = acceptProxyHeaders(server, {
    trustedProxies: config.trustedProxies,
    log,
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
      isOurs = ourAddresses(next);
      tooBig = `5.3.4 Message too big (limit ${next.maxMessageBytes} bytes)`;
      Object.assign(server.options, {
        size: next.maxMessageBytes,
        socketTimeout: next.smtpSocketTimeoutMs,
        name: next.domains[0] ?? 'localhost',
      });
      budget.limit = Math.max(next.smtpInflightBytes, next.maxMessageBytes);
      Object.assign(timeLimits, { sessionMs: next.smtpSessionTimeoutMs, dataMs: next.smtpDataTimeoutMs });
    },
    reloadTls(tls) {
      if (!options.tls) throw new Error('STARTTLS is not offered: start with a certificate to reload one');
      server.updateSecureContext({ key: tls.key, cert: tls.cert });
    },
    close() {
      closed ??= (async () => {
        closing = true;
        const done = new Promise<void>((resolve) => server.close(() => resolve()));
        proxies.close();
        // Idle connections would otherwise hold the close for the whole grace time.
        for (const connection of [...server.connections]) {
          // A 421 reply makes smtp-server close the connection itself.
          if (!inData.has(connection.session?.id)) connection.send(421, SHUTTING_DOWN);
        }
        await Promise.allSettled([...pending]);
        await done;
      })();
      return closed;
    },
  };
}
