/**
 * How a sender or a client address is matched, one reading for the admin API's searches (the file and
 * memory stores; Postgres says the same in SQL) and for the blocks applied at SMTP (src/server/admin/).
 *
 * A sender is an address (the From address or the envelope sender, any letter case) or a domain, which
 * also covers its subdomains (`example.com` covers `mail.example.com`, not `badexample.com`). A client
 * is an IP address or a CIDR range; an IPv4-mapped address (`::ffff:192.0.2.1`, in any spelling) is its
 * IPv4 address (limits/ip-address.ts, as the per-client limits read it).
 */
import { BlockList } from 'node:net';
import { clientIp, type IpPrefix, ipPrefix } from '../limits/ip-address';
import type { MessageFilter, StoredMessageMeta } from '../store/store';

/** A test for an IP address or a CIDR range, or undefined when `value` is neither. */
export function ipRange(value: string): ((ip: string) => boolean) | undefined {
  const prefix = ipPrefix(value);
  if (prefix === undefined) return undefined;
  const list = new BlockList();
  addPrefix(list, prefix);
  return (ip) => inList(list, ip);
}

/** Adds an address or a range to `list`. */
export function addPrefix(list: BlockList, { type, address, bits }: IpPrefix): void {
  if (bits === undefined) list.addAddress(address, type);
  else list.addSubnet(address, bits, type);
}

/** Whether `ip` (any spelling; not an address: false) is in `list`. */
export function inList(list: BlockList, ip: string): boolean {
  const client = clientIp(ip);
  return client !== undefined && list.check(client.address, client.family);
}

/** The domain of an address, lower case ('' when it has none). */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).toLowerCase();
}

/** Whether `domain` is `parent` or a subdomain of it. */
export function inDomain(domain: string, parent: string): boolean {
  return domain === parent || (parent !== '' && domain.endsWith(`.${parent}`));
}

/** Whether `address` is `sender` (an address), or lies in it (a domain, with no @). */
export function addressMatches(address: string, sender: string): boolean {
  const wanted = sender.trim().toLowerCase();
  return wanted.includes('@') ? address.toLowerCase() === wanted : inDomain(domainOf(address), wanted);
}

/** A test of stored messages for the admin API's filter (every part given must match). */
export function messageFilter(filter: MessageFilter): (m: StoredMessageMeta) => boolean {
  const inRange = filter.clientIp === undefined ? undefined : (ipRange(filter.clientIp) ?? (() => false));
  const sender = filter.sender;
  return (m) =>
    (sender === undefined || addressMatches(m.senderEmail, sender) || addressMatches(m.envelopeFrom ?? '', sender)) &&
    (inRange === undefined || (m.clientIp !== undefined && inRange(m.clientIp)));
}
