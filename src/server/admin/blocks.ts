/**
 * Blocks: senders, sender domains and client addresses the service refuses mail from. They are kept in
 * the store (every store: file, Postgres, memory; instances on one database share them) and applied by
 * the SMTP front end from the copy here, read at start and again whenever they change (an admin call on
 * this instance, a notice from another on Postgres, and once a minute on Postgres in case one was lost):
 * at connect (the client's address), at MAIL FROM and at each RCPT TO (address and sender), so a block
 * added while a client is connected applies to its next command.
 */
import { addressMatches, ipRange, plainIp } from '../store/match';
import type { Block, BlockKind } from '../store/store';

export const BLOCK_KINDS: readonly BlockKind[] = ['sender', 'domain', 'ip'];

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const LOCAL = /^[^\s@<>()[\]\\,;:"]{1,64}$/;

/** A block as asked for, checked and in the form it is kept in (lower case); or why it is refused. */
export function parseBlock(kind: unknown, value: unknown): { kind: BlockKind; value: string } | { error: string } {
  if (typeof kind !== 'string' || !(BLOCK_KINDS as readonly string[]).includes(kind)) return { error: 'kind must be sender, domain or ip' };
  if (typeof value !== 'string' || value.trim() === '' || value.length > 320) return { error: 'value is required (at most 320 characters)' };
  const v = value.trim().toLowerCase();
  if (kind === 'ip') {
    if (!ipRange(v)) return { error: 'value must be an IP address or a CIDR range such as 203.0.113.0/24' };
    return { kind, value: plainIp(v) };
  }
  if (kind === 'domain') return DOMAIN.test(v) ? { kind, value: v } : { error: 'value must be a domain name such as example.com' };
  const at = v.lastIndexOf('@');
  if (at < 1 || !LOCAL.test(v.slice(0, at)) || !DOMAIN.test(v.slice(at + 1))) return { error: 'value must be an address such as someone@example.com' };
  return { kind: kind as BlockKind, value: v };
}

/** The blocks as the SMTP front end applies them. */
export interface BlockCheck {
  /** Why mail from this client (and sender, once known) is refused, e.g. "ip 203.0.113.0/24"; undefined when it is not. */
  refusal(clientIp: string | undefined, sender?: string): string | undefined;
}

/** The blocks in effect, matched in memory. */
export class BlockRules implements BlockCheck {
  private ips: { block: Block; test: (ip: string) => boolean }[] = [];
  private senders: Block[] = [];
  private count = 0;

  /** Puts `blocks` in effect in place of the ones before. */
  replace(blocks: readonly Block[]): void {
    this.ips = blocks.flatMap((block) => {
      const test = block.kind === 'ip' ? ipRange(block.value) : undefined;
      return test ? [{ block, test }] : [];
    });
    this.senders = blocks.filter((b) => b.kind !== 'ip');
    this.count = blocks.length;
  }

  get size(): number {
    return this.count;
  }

  refusal(clientIp: string | undefined, sender?: string): string | undefined {
    if (clientIp !== undefined) {
      const ip = this.ips.find((r) => r.test(clientIp));
      if (ip) return `ip ${ip.block.value}`;
    }
    // A bounce (null sender) names no one to block; its client still can be.
    if (sender === undefined || sender === '') return undefined;
    // A sender block is an address (an @ in it), a domain block a domain: addressMatches tells them apart.
    const hit = this.senders.find((b) => addressMatches(sender, b.value));
    return hit && `${hit.kind} ${hit.value}`;
  }
}
