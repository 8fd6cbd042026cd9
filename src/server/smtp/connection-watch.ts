/**
 * The hooks of one SMTP connection that smtp-server has no handler for: EHLO/HELO (a refusal closes the
 * connection with 421: while the storage is down an SMTP health check must see it) and the outcome of a
 * STARTTLS handshake. smtp-server reports a failed handshake as a connection error (or not at all when
 * the client just hangs up), and a good one through onSecure; the watch turns both into one call of
 * `hooks.tls` with the reason of a failure.
 */
import type { SMTPServerSession } from 'smtp-server';
import type { SmtpHooks, SmtpPeer } from './smtp-hooks';
import type { SmtpConnection } from './time-limits';

/** smtp-server's connection, with the members the watch reads and wraps (not in its types). */
type Watched = SmtpConnection & {
  _upgrading?: boolean;
  handler_EHLO?: (command: Buffer, callback: () => void) => void;
  handler_HELO?: (command: Buffer, callback: () => void) => void;
};

/** The peer of a session, for a hook or a log line. */
export function peerOf(session: SMTPServerSession): SmtpPeer {
  return { id: session.id, client: session.remoteAddress, tls: Boolean(session.secure) };
}

/** A TLS error in words: its code (when it has one) and its message, without a stack. */
function tlsReason(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; meta?: { message?: unknown } };
  // smtp-server replaces OpenSSL's own words with "Failed to establish TLS session" and keeps them in meta.
  const message =
    typeof e?.meta?.message === 'string' ? e.meta.message : typeof e?.message === 'string' ? e.message : String(error);
  return typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

export class ConnectionWatch {
  /** Connections whose STARTTLS handshake started: the error met during it, if any. */
  private readonly handshakes = new Map<string, { error?: string }>();

  constructor(private readonly hooks: SmtpHooks) {}

  /** Wraps EHLO/HELO and listens for handshake errors; call from onConnect. */
  attach(raw: SmtpConnection): void {
    const connection = raw as Watched;
    for (const name of ['handler_EHLO', 'handler_HELO'] as const) {
      const original = connection[name];
      if (typeof original !== 'function') continue;
      connection[name] = (command, callback) => {
        const refusal = this.hooks.greet?.(peerOf(connection.session));
        if (!refusal) return original.call(connection, command, callback);
        // A 421 makes smtp-server close the connection after the reply.
        connection.send(refusal.code, refusal.text, false);
        callback();
      };
    }
    connection.on('error', (error: unknown) => {
      if (!connection._upgrading) return;
      const entry = this.handshakes.get(connection.session.id) ?? {};
      entry.error ??= tlsReason(error);
      this.handshakes.set(connection.session.id, entry);
    });
    const upgrade = (connection as { upgrade?: (...args: unknown[]) => void }).upgrade;
    if (typeof upgrade === 'function') {
      (connection as { upgrade: (...args: unknown[]) => void }).upgrade = (...args) => {
        if (!this.handshakes.has(connection.session.id)) this.handshakes.set(connection.session.id, {});
        upgrade.apply(connection, args);
      };
    }
  }

  /** The handshake of `session` succeeded (onSecure). */
  secured(session: SMTPServerSession): void {
    this.handshakes.delete(session.id);
    this.hooks.tls?.(peerOf(session), true);
  }

  /** A connection went away: a handshake it started and never finished failed. */
  closed(session: SMTPServerSession): void {
    const entry = this.handshakes.get(session.id);
    if (!entry) return;
    this.handshakes.delete(session.id);
    this.hooks.tls?.(peerOf(session), false, entry.error ?? 'the client left during the handshake');
  }

  /** Whether `error` came from a handshake in progress (logged by the watch, not as a connection error). */
  static isHandshakeError(error: { meta?: { stage?: unknown; tlsProtocol?: unknown } }): boolean {
    return error.meta?.stage === 'connect' && error.meta.tlsProtocol !== undefined;
  }
}
