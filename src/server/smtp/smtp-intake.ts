/**
 * SMTP intake of the reference service (smtp-server). It rejects early (STYLE.md item 9): recipients in
 * RCPT TO through the service, size through the SIZE extension, and it answers 250 to DATA only after
 * the service says the message is durably stored. It depends on nothing but the service contract.
 */
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { BlockCheck } from '../admin/blocks';
import type { ServerConfig } from '../server-config';
import { plainIp } from '../store/match';
import { ServiceError, type MailService } from '../service-types';
import { collectMessage, InflightBudget } from './collect-message';
import { SmtpTimeLimits, type SmtpConnection } from './time-limits';
import type { LoadedTls } from './tls-files';

export interface SmtpFrontOptions {
  log?: (line: string) => void;
  /** How long close() waits for a message still being received before cutting it off. Default 10 s. */
  closeGraceMs?: number;
  /** Most connections at once; more get 421. Default 200. */
  maxClients?: number;
  /** A certificate and key to offer through STARTTLS; without, STARTTLS is not offered. */
  tls?: LoadedTls;
  /** Blocked clients and senders (src/server/admin/blocks.ts): refused at connect, MAIL FROM and RCPT TO. */
  blocks?: BlockCheck;
}

export interface SmtpFront {
  server: SMTPServer;
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, says 421 to idle connections, lets a DATA in progress finish, then resolves. */
  close(): Promise<void>;
  /** Offers `tls` to the next STARTTLS (connections already upgraded keep theirs). Only with options.tls. */
  reloadTls(tls: LoadedTls): void;
  /** Takes `config`'s limits for the next connections and messages (a reload: src/server/reload/). */
  applyConfig(config: ServerConfig): void;
}

/** An SMTP reply for a refusal; the enhanced status code leads the text, as in "550 5.1.1 ...". */
function reply(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

/** Recipients for a log line: the first few, then how many more (a transaction may hold thousands). */
function listed(addresses: readonly string[], shown = 10): string {
  const head = addresses.slice(0, shown).join(', ');
  return addresses.length > shown ? `${head} and ${addresses.length - shown} more` : head || '(none)';
}

/**
 * smtp-server refuses a SIZE= over the limit in MAIL FROM itself, before onMailFrom, and words it
 * "552 Error: message exceeds ..." with no enhanced status code. Its only 552 replies are size refusals,
 * so any 552 not already leading with an enhanced code is re-worded to read like our own 552 5.3.4.
 * (Turning the library's check off with hideSize would also hide the limit from EHLO, which lets
 * senders skip a doomed transfer.)
 */
function rewordSizeRefusals(connection: SmtpConnection, text: string, log: (line: string) => void): void {
  const send = connection.send.bind(connection);
  connection.send = (code, data, context) => {
    if (code === 552 && !(typeof data === 'string' && /^5\.\d{1,3}\.\d{1,3} /.test(data))) {
      log(`smtp refused MAIL FROM (declared SIZE over the limit): 552 ${text}`);
      send(code, text, false);
    } else send(code, data, context);
  };
}

/** Builds the SMTP front end over a MailService. */
export function createSmtpFront(service: MailService, config: ServerConfig, options: SmtpFrontOptions = {}): SmtpFront {
  const log = options.log ?? (() => {});
  // Read from `config` at each use: a reload changes it in place (applyConfig below).
  let domainsOf: string[] | undefined;
  let servedDomains = new Set<string>();
  /** Ours: on one of our domains, or an alias (name+tag) of one of our external-mail accounts. */
  function isOurs(address: string): boolean {
    const split = (a: string) => ({ local: a.slice(0, a.lastIndexOf('@')), domain: a.slice(a.lastIndexOf('@') + 1).toLowerCase() });
    const rcpt = split(address);
    if (config.domains !== domainsOf) servedDomains = new Set((domainsOf = config.domains).map((d) => d.toLowerCase()));
    if (servedDomains.has(rcpt.domain)) return true;
    const name = (rcpt.local.split('+')[0] ?? '').toLowerCase();
    return config.extmailAccounts.some((account) => {
      const own = split(account.email);
      // Dot-insensitive providers (gmail-like) deliver j.o.hn@ to john@: compare without dots.
      const norm = (l: string) => (account.dotInsensitive ? l.replaceAll('.', '') : l).toLowerCase();
      return own.domain === rcpt.domain && norm(own.local) === norm(name);
    });
  }
  const tooBig = () => `5.3.4 Message too big (limit ${config.maxMessageBytes} bytes)`;
  const overBudget = '4.3.1 Too much mail arriving at once, try again later';
  // Never below one message of the size limit, or such a message could never be taken.
  const budget = new InflightBudget(Math.max(config.smtpInflightBytes, config.maxMessageBytes));
  /** Sessions (by id) that are inside DATA: close() lets them finish. */
  const inData = new Set<string>();
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
      if (connection.session === session) connection.send(421, '4.3.2 Service shutting down');
    }
  }

  /** The envelope sender for a log line: `<>` for a bounce (null sender), `?` before MAIL FROM. */
  function senderOf(session: SMTPServerSession): string {
    const from = session.envelope.mailFrom;
    if (!from) return '?';
    return from.address === '' ? '<>' : from.address;
  }

  /** One log line per refused recipient, so "why didn't my mail arrive?" has an answer in the log. */
  async function checkRcpt(address: SMTPServerAddress, session: SMTPServerSession): Promise<void> {
    const refusal = await rcptRefusal(address.address, session);
    if (!refusal) return;
    log(`smtp refused RCPT ${address.address} from ${senderOf(session)}: ${refusal.responseCode} ${refusal.message}`);
    throw refusal;
  }

  /** The client's address as blocks and the store keep it. */
  const clientIp = (session: SMTPServerSession) => plainIp(session.remoteAddress);

  /** Why `rcpt` is refused (an SMTP reply), or undefined when it is accepted. */
  async function rcptRefusal(rcpt: string, session: SMTPServerSession): Promise<ReturnType<typeof reply> | undefined> {
    if (closing) return reply(421, '4.3.2 Service shutting down, try again later');
    // A block added while the client is connected applies to its next recipient.
    const blocked = options.blocks?.refusal(clientIp(session), session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined);
    if (blocked) return reply(550, '5.7.1 Mail from this sender is refused');
    const known = session.envelope.rcptTo.some((r) => r.address.toLowerCase() === rcpt.toLowerCase());
    if (!known && session.envelope.rcptTo.length >= config.maxRecipients) {
      return reply(452, `4.5.3 Too many recipients (at most ${config.maxRecipients} per message)`);
    }
    let verdict;
    try {
      verdict = await service.checkRecipient(rcpt);
    } catch (error) {
      log(`smtp rcpt check failed: ${error instanceof Error ? error.message : String(error)}`);
      return reply(451, '4.3.0 Temporary failure, try again later');
    }
    if (verdict === 'ok') return undefined;
    if (verdict === 'full') return reply(452, '4.2.2 Mailbox full, try again later');
    if (verdict === 'expired') return reply(550, '5.1.1 Mailbox expired');
    // An address that is neither on our domains nor an alias of our accounts: we are no relay.
    if (!isOurs(rcpt)) return reply(550, '5.7.1 Relay access denied');
    return reply(550, '5.1.1 No such mailbox');
  }

  async function store(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined;
    const who = `from ${senderOf(session)} for ${listed(recipients)}`;
    let delivered: number;
    let full: string[] | undefined;
    try {
      ({ delivered, full } = await service.deliver({ raw, recipients, envelopeFrom, clientIp: clientIp(session) }));
    } catch (error) {
      const what = error instanceof ServiceError ? error.code : error instanceof Error ? error.message : String(error);
      log(`smtp deliver failed (${raw.length} bytes ${who}): ${what}`);
      // Never 250 and never a permanent refusal for our own trouble: the sender keeps the message and retries.
      throw reply(451, '4.3.0 Temporary failure storing the message, try again later');
    }
    // An inbox filled up between RCPT and the end of DATA (other connections, other services): nothing
    // was stored for anyone, so the sender's retry doubles nothing; at the retry RCPT TO refuses the
    // full mailbox and the others get the message.
    if (full) {
      const text = `4.2.2 Mailbox full (${listed(full, 3)}), try again later`;
      log(`smtp refused DATA (${raw.length} bytes ${who}): 452 ${text}`);
      throw reply(452, text);
    }
    // Every recipient went away between RCPT and the end of DATA (expired): nobody holds the message.
    if (delivered === 0) {
      log(`smtp refused DATA (${raw.length} bytes ${who}): 550 5.1.1 No live mailbox for this message`);
      throw reply(550, '5.1.1 No live mailbox for this message');
    }
    // Fewer than listed: some expired between RCPT and the end of DATA.
    const some = delivered < recipients.length ? ` (${delivered} of ${recipients.length} still live)` : '';
    log(`smtp stored ${raw.length} bytes ${who}${some}`);
    return `2.0.0 Ok: stored for ${delivered} mailbox(es)`;
  }

  function onData(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ): void {
    inData.add(session.id);
    const collector = collectMessage(stream, budget);
    const received = limits.dataStarted(session, () => collector.cut());
    void collector.done.then((result) => {
      // The client vanished mid-message, or its time ran out: nothing was acknowledged, nothing is stored.
      if (result.kind === 'gone') return release(session);
      received();
      const who = () => `from ${senderOf(session)} for ${listed(session.envelope.rcptTo.map((r) => r.address))}`;
      if (result.kind === 'too-large') {
        log(`smtp refused oversize message (${result.bytes} bytes ${who()}): 552 ${tooBig()}`);
        callback(reply(552, tooBig()));
        return release(session);
      }
      if (result.kind === 'over-budget') {
        log(`smtp refused DATA (${result.bytes} bytes ${who()}): 451 ${overBudget} (${budget.limit} bytes of messages in flight at once)`);
        callback(reply(451, overBudget));
        return release(session);
      }
      const job = store(result.raw, session);
      pending.add(job);
      job.then(
        (message) => callback(null, message),
        (error: Error) => callback(error),
      ).finally(() => {
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
      const blocked = options.blocks?.refusal(clientIp(session));
      if (blocked) {
        log(`smtp refused connection from ${clientIp(session)}: blocked (${blocked})`);
        return callback(reply(554, '5.7.1 Connections from your address are refused'));
      }
      // The greeting (and so any command) waits for this callback: the connection is worded before MAIL FROM.
      for (const connection of server.connections) {
        if (connection.session !== session) continue;
        rewordSizeRefusals(connection, tooBig(), log);
        limits.connected(connection);
      }
      callback();
    },
    onClose(session) {
      limits.closed(session.id);
    },
    onRcptTo(address, session, callback) {
      checkRcpt(address, session).then(
        () => callback(),
        (error: Error) => callback(error),
      );
    },
    onMailFrom(address, session, callback) {
      const blocked = !closing && options.blocks?.refusal(clientIp(session), address.address);
      if (blocked) {
        log(`smtp refused MAIL FROM ${address.address || '<>'} from ${clientIp(session)}: blocked (${blocked})`);
        return callback(reply(550, '5.7.1 Mail from this sender is refused'));
      }
      if (!closing) return callback();
      log(`smtp refused MAIL FROM ${address.address || '<>'}: 421 4.3.2 Service shutting down, try again later`);
      callback(reply(421, '4.3.2 Service shutting down, try again later'));
    },
    onData,
  });
  // Connection errors (resets, timeouts, garbage) arrive here; without a listener they would crash us.
  // A failed listen arrives here too, but listen() rejects with it and the caller words it: not logged twice.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.syscall !== 'listen') log(`smtp connection error: ${error.message}`);
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
      Object.assign(server.options, { size: next.maxMessageBytes, socketTimeout: next.smtpSocketTimeoutMs, name: next.domains[0] ?? 'localhost' });
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
        // Idle connections would otherwise hold the close for the whole grace time.
        for (const connection of [...server.connections]) {
          // A 421 reply makes smtp-server close the connection itself.
          if (!inData.has(connection.session?.id)) connection.send(421, '4.3.2 Service shutting down');
        }
        await Promise.allSettled([...pending]);
        await done;
      })();
      return closed;
    },
  };
}
