/**
 * Address rules of the reference service: which prefixes a user may pick, random local parts that read
 * well, external-mail aliases, and the reduction of an incoming RCPT address to the routing key a session
 * is stored under (StoredSession.addressKey).
 *
 * Routing keys: on our own domains `local@domain` (lower-cased; a `+suffix` is ignored, since a prefix can
 * never contain `+`); for an external-mail account `account+tag@provider` (lower-cased; for a
 * dot-insensitive account the dots of the account part are dropped, as the provider does).
 */
import { randomInt } from 'node:crypto';
import type { ExtmailAccountConfig } from '../config/server-config';
import { brokenPrefixRule, canonicalPrefix, PREFIX_MAX, type PrefixRule } from '../../model/prefix-rules';

export { PREFIX_MAX, RESERVED_PREFIXES } from '../../model/prefix-rules';

export type PrefixCheck = { ok: true; prefix: string } | { ok: false; message: string };

const SAY: Record<PrefixRule, (prefix: string) => string> = {
  length: () => `prefix must be 1 to ${PREFIX_MAX} characters long`,
  chars: () => 'prefix may only contain the letters a-z, digits 0-9, ".", "_" and "-"',
  'edge-dot': () => 'prefix must not start or end with a dot',
  'double-dot': () => 'prefix must not contain two dots in a row',
  reserved: (prefix) => `prefix "${prefix}" is reserved`,
};

/**
 * Validates a user-chosen prefix (1-64 of a-z 0-9 . _ -, no edge or double dot, not reserved) and gives
 * it in the form kept: NFKC, lower case (fullwidth "ｑｕｉｅｔ" is "quiet").
 */
export function checkPrefix(input: string): PrefixCheck {
  const prefix = canonicalPrefix(input.trim());
  const rule = brokenPrefixRule(prefix);
  return rule ? { ok: false, message: SAY[rule](prefix) } : { ok: true, prefix };
}

// 128 x 128 x 10,000 = 163 million names (27 bits): collisions are rare and are retried by the service.
const ADJECTIVES = (
  'amber azure bold brave breezy bright brisk calm candid cheerful chilly clever cosmic cozy crisp curious ' +
  'dapper daring dusty eager early easy fancy fast fearless fluffy fond fresh friendly frosty gentle giddy ' +
  'glad golden grand green happy hardy hazy honest humble icy jolly keen kind lively lucky lunar mellow merry ' +
  'mighty misty modest nimble noble odd olive patient peppy plain plucky polite proud quick quiet rapid ' +
  'rosy royal rustic sandy shiny silent silver simple sleek sleepy smooth snowy solar spicy spry steady ' +
  'stormy sturdy sunny swift tame tidy tiny tranquil upbeat urban vivid warm wavy wild windy wise witty ' +
  'woolly young zany zesty agile ample balmy blithe cool dreamy elated fabled gleeful hearty idle jovial ' +
  'lush placid pure sage serene snug rapt rare ruby stoic tender vast zippy'
).split(' ');
const NOUNS = (
  'otter badger beaver bison bobcat camel cobra condor coyote crane cricket dingo dolphin donkey eagle ' +
  'falcon ferret finch flamingo fox gazelle gecko gibbon goose gopher heron hippo ibis iguana jackal jaguar ' +
  'kestrel kiwi koala lemur leopard lion llama lobster lynx magpie mako marmot marten meerkat mink mole ' +
  'moose narwhal newt ocelot orca osprey owl panda panther parrot pelican penguin petrel pigeon plover ' +
  'puffin puma quail rabbit raccoon raven robin salmon seal shark sloth snail sparrow squid stork swan ' +
  'tapir tiger toad toucan trout turtle viper vole walrus weasel whale wombat wren yak zebra acorn aspen ' +
  'birch cedar clover comet cove dune ember fern fjord glade grove harbor lagoon maple meadow mesa nebula ' +
  'oak orchid pebble prairie reef ridge river summit thistle tundra willow bee cougar hare ibex mantis'
).split(' ');

function pick<T>(list: readonly T[]): T {
  return list[randomInt(list.length)] as T;
}

/** A random local part such as "quiet-otter-4821". */
export function randomLocalPart(): string {
  return `${pick(ADJECTIVES)}-${pick(NOUNS)}-${String(randomInt(10_000)).padStart(4, '0')}`;
}

/** Splits "local@domain" at the last "@"; null when either side is empty. */
export function splitAddress(address: string): { local: string; domain: string } | null {
  const a = address.trim().replace(/^<(.*)>$/, '$1');
  const at = a.lastIndexOf('@');
  if (at <= 0 || at === a.length - 1) return null;
  return {
    local: a.slice(0, at),
    domain: a
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, ''),
  };
}

/** The account part of an external-mail account as the provider compares it. */
function canonicalAccount(local: string, dotInsensitive: boolean): string {
  const l = local.toLowerCase();
  return dotInsensitive ? l.replace(/\./g, '') : l;
}

/** Routing key of an address on one of our own domains. */
export function domainAddressKey(localPart: string, domain: string): string {
  return `${localPart.toLowerCase()}@${domain.toLowerCase()}`;
}

/** A random dot variant of an account name ("johndoe" -> "jo.hnd.oe"); at least one dot when possible. */
export function randomDotVariant(local: string): string {
  const letters = [...local.replace(/\./g, '')];
  if (letters.length < 2) return letters.join('');
  const gaps = letters.length - 1;
  const forced = randomInt(gaps);
  return letters.map((c, i) => (i < gaps && (i === forced || randomInt(3) === 0) ? `${c}.` : c)).join('');
}

/**
 * The alias of an external-mail account for `tag`: `name+tag@provider`, and for a dot-insensitive
 * account with the dots of a random variant (`n.ame+tag@provider`). Both route to the same key.
 */
export function extmailAlias(
  account: ExtmailAccountConfig,
  tag: string,
): { email: string; addressKey: string; localPart: string; domain: string } | null {
  const parts = splitAddress(account.email);
  if (!parts) return null;
  const base = account.dotInsensitive ? randomDotVariant(parts.local) : parts.local;
  const localPart = `${base}+${tag}`;
  return {
    email: `${localPart}@${parts.domain}`,
    localPart,
    domain: parts.domain,
    addressKey: `${canonicalAccount(parts.local, account.dotInsensitive)}+${tag.toLowerCase()}@${parts.domain}`,
  };
}

/** What the service serves: its domains and its external-mail accounts. */
export interface AddressBook {
  domains: readonly string[];
  extmailAccounts: readonly ExtmailAccountConfig[];
}

/** True when mail for `domain` is ours to take (one of our domains or an external-mail provider's). */
export function isServedDomain(book: AddressBook, domain: string): boolean {
  const d = domain.toLowerCase().replace(/\.$/, '');
  return (
    book.domains.some((x) => x.toLowerCase() === d) ||
    book.extmailAccounts.some((a) => splitAddress(a.email)?.domain === d)
  );
}

/**
 * Reduces an incoming RCPT address to the routing key a session would hold, or null when it cannot be
 * one of ours (foreign domain, bare external-mail account without a tag, malformed).
 */
export function recipientKey(book: AddressBook, address: string): string | null {
  const parts = splitAddress(address);
  if (!parts) return null;
  const local = parts.local.toLowerCase();
  if (book.domains.some((d) => d.toLowerCase() === parts.domain)) {
    const base = local.split('+')[0] ?? '';
    return base ? `${base}@${parts.domain}` : null;
  }
  for (const account of book.extmailAccounts) {
    const key = aliasKey(account, address);
    if (key) return key;
  }
  return null;
}

/**
 * The routing key of `address` when it is an alias of `account` (`name+tag@provider`, any letter case,
 * and for a dot-insensitive account any dots in `name`), else null: the bare account, another account
 * or domain, no tag.
 */
export function aliasKey(account: ExtmailAccountConfig, address: string): string | null {
  const parts = splitAddress(address);
  const acc = splitAddress(account.email);
  if (!parts || !acc || acc.domain !== parts.domain) return null;
  const local = parts.local.toLowerCase();
  const plus = local.indexOf('+');
  if (plus <= 0 || plus === local.length - 1) return null;
  const canonical = canonicalAccount(acc.local, account.dotInsensitive);
  if (canonicalAccount(local.slice(0, plus), account.dotInsensitive) !== canonical) return null;
  return `${canonical}+${local.slice(plus + 1)}@${parts.domain}`;
}
