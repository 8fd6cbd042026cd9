/**
 * What the SMTP front end asks and tells the rest of the service beyond the mail service itself: the
 * limits (src/server/limits/), the metrics and the storage health (src/server/observe/), and whatever
 * else wants a say at connect, MAIL FROM or RCPT TO (a block list). Each hook is optional; a refusal is
 * the reply the client hears, and `reason` names it in the log and the metrics.
 */

/** A refusal: the SMTP reply (enhanced code first in `text`) and a short reason. */
export interface SmtpRefusal {
  code: number;
  text: string;
  reason: string;
}

/** Who is talking: the connection's id, the client's address, whether STARTTLS is up. */
export interface SmtpPeer {
  id: string;
  client: string;
  tls: boolean;
}

/** Why a connection was refused over its PROXY header. */
export type ProxyRefusal = 'untrusted_proxy' | 'bad_proxy_header' | 'proxy_waiting';

export interface SmtpHooks {
  /** A connection arrived; a refusal (421) is said instead of the greeting and the connection closed. */
  connect?(peer: SmtpPeer): SmtpRefusal | undefined;
  /** The connection is gone (admitted or refused). */
  closed?(peer: SmtpPeer): void;
  /**
   * A connection was refused over its PROXY header (proxy-intake.ts): `client` is the peer, `reason`
   * `untrusted_proxy` (a header from a peer not in trustedProxies), `bad_proxy_header` or `proxy_waiting`.
   */
  proxyRefused?(client: string, reason: ProxyRefusal): void;
  /** EHLO or HELO; a refusal (421, storage down) closes the connection. */
  greet?(peer: SmtpPeer): SmtpRefusal | undefined;
  /** MAIL FROM `sender` ('' for a bounce). */
  mailFrom?(peer: SmtpPeer, sender: string): Promise<SmtpRefusal | undefined>;
  /**
   * RCPT TO `recipient`, before the mail service is asked about it; `earlier` recipients of this
   * transaction were accepted, and `size` is the size its MAIL FROM declared (0 when none).
   */
  rcpt?(peer: SmtpPeer, recipient: string, earlier: number, size: number): Promise<SmtpRefusal | undefined>;
  /**
   * DATA ended with a message of `bytes` for `copies` recipients, before it is stored: a refusal, or the
   * release to call when the delivery is over (the room it holds meanwhile).
   */
  hold?(peer: SmtpPeer, copies: number, bytes: number): Promise<SmtpRefusal | (() => void)>;
  /** A STARTTLS handshake ended (`reason` of a failure, for the log). */
  tls?(peer: SmtpPeer, ok: boolean, reason?: string): void;
  /** A message or a recipient was refused, for `reason` (every refusal, whoever decided it). */
  refused?(peer: SmtpPeer, reason: string): void;
  /** DATA was answered `ms` after its end: the message stored, refused, or failed (our storage). */
  transaction?(peer: SmtpPeer, result: 'stored' | 'refused' | 'failed', ms: number): void;
}

/**
 * Several hook sets as one, asked in the order given: the first refusal wins (the later ones are not
 * asked), and every set hears of what happened (closed, tls, refused).
 */
export function joinSmtpHooks(...sets: SmtpHooks[]): SmtpHooks {
  const first =
    <A extends unknown[]>(pick: (h: SmtpHooks) => ((...args: A) => SmtpRefusal | undefined) | undefined) =>
    (...args: A) => {
      for (const h of sets) {
        const refusal = pick(h)?.call(h, ...args);
        if (refusal) return refusal;
      }
      return undefined;
    };
  const firstAsync =
    <A extends unknown[]>(pick: (h: SmtpHooks) => ((...args: A) => Promise<SmtpRefusal | undefined>) | undefined) =>
    async (...args: A) => {
      for (const h of sets) {
        const refusal = await pick(h)?.call(h, ...args);
        if (refusal) return refusal;
      }
      return undefined;
    };
  return {
    connect: first((h) => h.connect),
    closed: (peer) => {
      for (const h of sets) h.closed?.(peer);
    },
    proxyRefused: (client, reason) => {
      for (const h of sets) h.proxyRefused?.(client, reason);
    },
    greet: first((h) => h.greet),
    mailFrom: firstAsync((h) => h.mailFrom),
    rcpt: firstAsync((h) => h.rcpt),
    hold: sets.find((h) => h.hold)?.hold,
    tls: (peer, ok, reason) => {
      for (const h of sets) h.tls?.(peer, ok, reason);
    },
    refused: (peer, reason) => {
      for (const h of sets) h.refused?.(peer, reason);
    },
    transaction: (peer, result, ms) => {
      for (const h of sets) h.transaction?.(peer, result, ms);
    },
  };
}
