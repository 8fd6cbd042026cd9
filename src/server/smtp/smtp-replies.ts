/**
 * The SMTP front end's wording: refusals as smtp-server takes them, recipient lists for a log line, the
 * re-worded size refusal, and which addresses are ours to receive (relay or not).
 */
import type { ServerConfig } from '../config/server-config';
import type { SmtpConnection } from './time-limits';

/**
 * An SMTP reply for a refusal; the enhanced status code leads the text, as in "550 5.1.1 ...". `reason`
 * names it in the log and the metrics.
 */
export function reply(code: number, text: string, reason: string): Error & { responseCode: number; reason: string } {
  return Object.assign(new Error(text), { responseCode: code, reason });
}

/** Recipients for a log line: the first few, then how many more (a transaction may hold thousands). */
export function listed(addresses: readonly string[], shown = 10): string {
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
export function rewordSizeRefusals(connection: SmtpConnection, text: string, refused: (text: string) => void): void {
  const send = connection.send.bind(connection);
  connection.send = (code, data, context) => {
    if (code === 552 && !(typeof data === 'string' && /^5\.\d{1,3}\.\d{1,3} /.test(data))) {
      refused(`smtp refused MAIL FROM (declared SIZE over the limit): 552 ${text}`);
      send(code, text, false);
    } else send(code, data, context);
  };
}

/**
 * Whether an address is ours: on one of our domains, or an alias (name+tag) of one of our external-mail
 * accounts. Another address is a relay attempt (550 5.7.1).
 */
export function ourAddresses(config: Pick<ServerConfig, 'domains' | 'extmailAccounts'>): (address: string) => boolean {
  const servedDomains = new Set(config.domains.map((d) => d.toLowerCase()));
  const split = (a: string) => ({
    local: a.slice(0, a.lastIndexOf('@')),
    domain: a.slice(a.lastIndexOf('@') + 1).toLowerCase(),
  });
  return (address) => {
    const rcpt = split(address);
    if (servedDomains.has(rcpt.domain)) return true;
    const name = (rcpt.local.split('+')[0] ?? '').toLowerCase();
    return config.extmailAccounts.some((account) => {
      const own = split(account.email);
      // Dot-insensitive providers (gmail-like) deliver j.o.hn@ to john@: compare without dots.
      const norm = (l: string) => (account.dotInsensitive ? l.replaceAll('.', '') : l).toLowerCase();
      return own.domain === rcpt.domain && norm(own.local) === norm(name);
    });
  };
}
