/** Where a new session's address goes (a domain or an external-mail account) and what it is. */
import { domainAddressKey, extmailAlias } from './addresses';
import type { CreateSessionInput } from '../service/service-types';
import type { ExtmailAccountConfig } from '../config/server-config';
import { ServiceError } from '../service/service-types';

export type Target = { kind: 'domain'; domain: string } | { kind: 'extmail'; accountId: number };

/** The address fields of a session record. */
export interface AddressParts {
  email: string;
  addressKey: string;
  localPart: string;
  domain: string;
}

/** A counter for the automatic account choice: round robin, so aliases spread over the accounts. */
export function roundRobin(): (count: number) => number {
  let next = 0;
  return (count) => (next++ % count) + 1;
}

/**
 * Reads domain_id / use_extmail / extmail_auto / extmail_id. Any extmail parameter asks for an alias
 * (domain_id is then ignored); an unknown id, an inactive account (`active`: one whose IMAP connection
 * is failing) or a missing account is a 400 that says what is wrong.
 */
export function chooseTarget(
  input: CreateSessionInput,
  domains: readonly string[],
  accounts: readonly ExtmailAccountConfig[],
  pickAccount: (count: number) => number,
  active: (accountId: number) => boolean = () => true,
): Target {
  const wantsExtmail = input.useExtmail === true || input.extmailAuto === true || input.extmailId !== undefined;
  if (!wantsExtmail) {
    if (domains.length === 0) throw new ServiceError('bad_request', 'This service offers no domains');
    if (input.domainId === undefined) return { kind: 'domain', domain: domains[0] as string };
    const domain =
      Number.isSafeInteger(input.domainId) && input.domainId >= 1 ? domains[input.domainId - 1] : undefined;
    if (domain === undefined) {
      throw new ServiceError('bad_request', `domain_id ${input.domainId} is not an offered domain (see GET /domains)`);
    }
    return { kind: 'domain', domain };
  }
  if (accounts.length === 0) {
    throw new ServiceError('bad_request', 'This service has no external mail accounts configured');
  }
  if (input.extmailId !== undefined) {
    const ok = Number.isSafeInteger(input.extmailId) && input.extmailId >= 1 && input.extmailId <= accounts.length;
    if (!ok) {
      throw new ServiceError(
        'bad_request',
        `extmail_id ${input.extmailId} is not an offered account (see GET /domains)`,
      );
    }
    if (!active(input.extmailId)) {
      throw new ServiceError(
        'bad_request',
        `extmail_id ${input.extmailId} is not available right now: its mail cannot be fetched (see GET /domains)`,
      );
    }
    return { kind: 'extmail', accountId: input.extmailId };
  }
  const ids = accounts.map((_, i) => i + 1).filter((id) => active(id));
  if (ids.length === 0)
    throw new ServiceError('bad_request', 'No external mail account is available right now (see GET /domains)');
  return { kind: 'extmail', accountId: ids[pickAccount(ids.length) - 1] as number };
}

/** The address for `local` at a target: `local@domain`, or the account's alias with `local` as its tag. */
export function addressFor(target: Target, local: string, accounts: readonly ExtmailAccountConfig[]): AddressParts {
  if (target.kind === 'domain') {
    return {
      email: `${local}@${target.domain}`,
      addressKey: domainAddressKey(local, target.domain),
      localPart: local,
      domain: target.domain,
    };
  }
  const account = accounts[target.accountId - 1];
  const alias = account && extmailAlias(account, local);
  if (!alias) throw new ServiceError('internal', 'An external mail account is misconfigured');
  return alias;
}
