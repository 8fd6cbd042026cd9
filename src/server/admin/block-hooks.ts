/**
 * The blocks (blocks.ts) at the SMTP front end, as hooks (src/server/smtp/smtp-hooks.ts) asked before
 * the limits: a blocked client address hears 554 5.7.1 instead of the greeting; a blocked sender (or a
 * blocked client, blocked since it connected) hears 550 5.7.1 at MAIL FROM and at each RCPT TO, so a
 * block added while a client is connected applies to its next command. The reason, for the log and the
 * metrics, is "blocked"; which block it was is in the connect line, and in GET /admin/blocks.
 */
import type { Logger } from '../observe/log';
import type { SmtpHooks, SmtpRefusal } from '../smtp/smtp-hooks';
import { plainIp } from '../limits/ip-address';
import type { BlockCheck } from './blocks';

const REFUSED: SmtpRefusal = { code: 550, text: '5.7.1 Mail from this sender is refused', reason: 'blocked' };

/** `onBlocked` hears the kind of each block that refused a connection or a sender (the metrics). */
export function blockHooks(
  blocks: BlockCheck,
  log: Logger,
  onBlocked: (kind: string) => void = () => undefined,
): SmtpHooks {
  // The sender of each connection's transaction (MAIL FROM), for its recipients.
  const senders = new Map<string, string>();
  return {
    connect(peer) {
      const why = blocks.refusal(plainIp(peer.client));
      if (!why) return undefined;
      onBlocked(kindOf(why));
      log.event({
        level: 'info',
        event: 'smtp.blocked',
        text: `smtp refused connection from ${peer.client}: blocked (${why})`,
        fields: { client: peer.client, reason: 'blocked' },
      });
      return { code: 554, text: '5.7.1 Connections from your address are refused', reason: 'blocked' };
    },
    closed: (peer) => void senders.delete(peer.id),
    async mailFrom(peer, sender) {
      senders.set(peer.id, sender);
      const why = blocks.refusal(plainIp(peer.client), sender);
      if (!why) return undefined;
      onBlocked(kindOf(why));
      return REFUSED;
    },
    async rcpt(peer) {
      return blocks.refusal(plainIp(peer.client), senders.get(peer.id)) ? REFUSED : undefined;
    },
  };
}

/** The kind of a block from its refusal ("ip 203.0.113.0/24" -> "ip"). */
function kindOf(why: string): string {
  return why.split(' ', 1)[0] ?? 'other';
}
