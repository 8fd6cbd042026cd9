/**
 * Blocks: senders, sender domains and client addresses the service refuses mail from. They are kept in
 * the store (every store: file, Postgres, memory; instances on one database share them) and applied by
 * the SMTP front end from the copy here, read at start and again whenever they change (an admin call on
 * this instance, a notice from another on Postgres, and once a minute on Postgres in case one was lost):
 * at connect (the client's address), at MAIL FROM and at each RCPT TO (address and sender), so a block
 * added while a client is connected applies to its next command.
 *
 * Domains are compared in one form, their ASCII (IDNA) one: smtp-server hands a sender's domain over in
 * Unicode (it decodes xn-- labels), so a block kept as `xn--bcher-kva.example` never met the sender
 * `x@xn--bcher-kva.example`, whichever way the client spelled it. A block may be given in either form; a
 * sender's domain is mapped as a resolver would (letter case, full-width forms, ideographic dots). A
 * quoted local part that needs no quotes ("spam"@example.com) is the same mailbox as without them.
 */
import { BlockList } from 'node:net';
import { domainToASCII } from 'node:url';
import { ipPrefix, showPrefix } from '../limits/ip-address';
import { addPrefix, domainOf, inList, ipRange } from '../mail/match';
import type { Block, BlockKind } from '../store/store';
import { BLOCK_KINDS } from '../store/store-admin';

const DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const LOCAL = /^[^\s@<>()[\]\\,;:"]{1,64}$/;

/** A domain in the form blocks are kept and compared in: IDNA's ASCII form, lower case; '' when it is none. */
function asciiDomain(domain: string): string {
  // An address literal ([192.0.2.1]) is no name: kept as it is (no domain block can match it).
  if (domain.startsWith('[')) return domain.toLowerCase();
  return domainToASCII(domain).toLowerCase();
}

/** A sender as blocks compare it: the local part without needless quotes, lower case; the domain in ASCII. */
function blockForm(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address.toLowerCase();
  let local = address.slice(0, at);
  // "spam"@example.com is spam@example.com (RFC 5321 4.1.2: a quoted string is the same local part).
  if (local.length >= 2 && local.startsWith('"') && local.endsWith('"'))
    local = local.slice(1, -1).replace(/\\(.)/g, '$1');
  const domain = asciiDomain(address.slice(at + 1));
  return `${local.toLowerCase()}@${domain || address.slice(at + 1).toLowerCase()}`;
}

/** A block as asked for, checked and in the form it is kept in (lower case); or why it is refused. */
export function parseBlock(kind: unknown, value: unknown): { kind: BlockKind; value: string } | { error: string } {
  if (typeof kind !== 'string' || !(BLOCK_KINDS as readonly string[]).includes(kind))
    return { error: 'kind must be sender, domain or ip' };
  if (typeof value !== 'string' || value.trim() === '' || value.length > 320)
    return { error: 'value is required (at most 320 characters)' };
  const v = value.trim().toLowerCase();
  if (kind === 'ip') {
    const prefix = ipPrefix(v);
    if (!prefix) return { error: 'value must be an IP address or a CIDR range such as 203.0.113.0/24' };
    return { kind, value: showPrefix(prefix) };
  }
  // A name may be given in Unicode (bücher.example) or ASCII (xn--bcher-kva.example): kept in ASCII.
  const name = (d: string) => asciiDomain(d.endsWith('.') ? d.slice(0, -1) : d);
  if (kind === 'domain') {
    const domain = name(v);
    return DOMAIN.test(domain) ? { kind, value: domain } : { error: 'value must be a domain name such as example.com' };
  }
  const at = v.lastIndexOf('@');
  const domain = at < 1 ? '' : name(v.slice(at + 1));
  if (at < 1 || !LOCAL.test(v.slice(0, at)) || !DOMAIN.test(domain))
    return { error: 'value must be an address such as someone@example.com' };
  return { kind: kind as BlockKind, value: `${v.slice(0, at)}@${domain}` };
}

/** The blocks as the SMTP front end applies them. */
export interface BlockCheck {
  /** Why mail from this client (and sender, once known) is refused, e.g. "ip 203.0.113.0/24"; undefined when it is not. */
  refusal(clientIp: string | undefined, sender?: string): string | undefined;
}

/**
 * The blocks in effect, matched in memory: a client address against all ranges at once (one node:net
 * BlockList), a sender by one lookup of its address and one of each of its domain's suffixes. Each check
 * used to walk every block: with a list of 100,000 (an imported blocklist) that was 11 ms of the event loop
 * at every MAIL FROM and RCPT TO of every sender, blocked or not, 0.6 s for one message of 50 recipients.
 */
export class BlockRules implements BlockCheck {
  private ips: { block: Block; test: (ip: string) => boolean }[] = [];
  private anyIp = new BlockList();
  /** Sender blocks (an address, with its @) and domain blocks (a domain covers its subdomains), by value. */
  private addresses = new Map<string, Block>();
  private domains = new Map<string, Block>();
  private count = 0;

  /** Puts `blocks` in effect in place of the ones before. */
  replace(blocks: readonly Block[]): void {
    const anyIp = new BlockList();
    this.ips = blocks.flatMap((block) => {
      const prefix = block.kind === 'ip' ? ipPrefix(block.value) : undefined;
      if (!prefix) return [];
      addPrefix(anyIp, prefix);
      return [{ block, test: ipRange(block.value)! }];
    });
    this.anyIp = anyIp;
    this.addresses = new Map();
    this.domains = new Map();
    for (const b of blocks) {
      if (b.kind === 'ip') continue;
      // As addressMatches reads a value: with an @ an address, without one a domain.
      const value = b.value.trim().toLowerCase();
      if (value.includes('@')) this.addresses.set(value, b);
      else this.domains.set(value, b);
    }
    this.count = blocks.length;
  }

  get size(): number {
    return this.count;
  }

  refusal(clientIp: string | undefined, sender?: string): string | undefined {
    if (clientIp !== undefined) {
      // Which range it was is looked for only for a client that is in one (its refusal names it).
      if (inList(this.anyIp, clientIp)) {
        const ip = this.ips.find((r) => r.test(clientIp));
        if (ip) return `ip ${ip.block.value}`;
      }
    }
    // A bounce (null sender) names no one to block; its client still can be.
    if (sender === undefined || sender === '') return undefined;
    const who = blockForm(sender);
    const exact = this.addresses.get(who);
    if (exact) return `${exact.kind} ${exact.value}`;
    // The domain, then each parent: mail.bad.example, bad.example, example.
    let domain = domainOf(who);
    while (domain !== '') {
      const hit = this.domains.get(domain);
      if (hit) return `${hit.kind} ${hit.value}`;
      const dot = domain.indexOf('.');
      domain = dot < 0 ? '' : domain.slice(dot + 1);
    }
    return undefined;
  }
}
