/** The picker's choices: the saved addresses to resume, then what the service offers. */
import type { SavedSession } from '../../state/saved-sessions';
import { lifeText, refusedNote } from '../wording/display-format';
import { providerName } from '../wording/provider-text';
import { expiryMs, type CreateSessionOptions, type Domain, type DomainList } from '../../model/mail-types';

/** A choice that creates an address. */
export type NewChoice =
  | { kind: 'random'; domain: Domain }
  | { kind: 'custom'; domain: Domain }
  | { kind: 'extmail'; account: { id: number; email: string } }
  | { kind: 'extmailAuto' };

export type PickerChoice = NewChoice | { kind: 'saved'; session: SavedSession };

export interface PickerItem {
  key: string;
  label: string;
  value: PickerChoice;
}

/**
 * The live saved addresses, to resume, with their remaining time. Only the label changes as time
 * passes, not the value, so the ticking countdown keeps the selection. Those the service last refused
 * come last, saying so: still offered, since a restored service knows them again.
 */
export function savedItems(saved: readonly SavedSession[], now: number, here?: string): PickerItem[] {
  const live = saved.filter((s) => expiryMs(s) > now);
  return [...live.filter((s) => !s.refusedAt), ...live.filter((s) => s.refusedAt)].map((session) => {
    // The provider is named when it is not the one the picker creates on.
    const name = providerName({ provider: session.provider, baseUrl: session.baseUrl });
    const on = name === here ? '' : `, ${name}`;
    return {
      key: savedKey(session),
      label: `Resume ${session.email} (${lifeText(session, now)}${on}${refusedNote(session)})`,
      value: { kind: 'saved', session },
    };
  });
}

/** The item key of a saved address: unique across providers. */
export const savedKey = (s: Pick<SavedSession, 'email' | 'provider' | 'baseUrl'>): string =>
  `s${s.provider} ${s.baseUrl} ${s.email}`;

/** The domain of a provider that picks it itself (TempMail.lol): asked for with no domain. */
const ANY_DOMAIN: Domain = Object.freeze({ id: 0, domain: '' });

/** True for ANY_DOMAIN. */
export const isAnyDomain = (domain: Domain): boolean => domain.domain === '';

/**
 * Random and custom address per domain (or, where the provider picks the domain, one of each: `who`
 * names it), an alias per external account, and "picked for me".
 */
export function pickerItems(list: DomainList, who = 'the provider'): PickerItem[] {
  const items: PickerItem[] = [];
  if (list.anyDomain && list.domains.length === 0) {
    items.push({
      key: 'r*',
      label: `Random address (${who} picks the domain)`,
      value: { kind: 'random', domain: ANY_DOMAIN },
    });
    items.push({
      key: 'c*',
      label: `Custom name (${who} picks the domain)…`,
      value: { kind: 'custom', domain: ANY_DOMAIN },
    });
  }
  for (const domain of list.domains) {
    items.push({
      key: `r${domain.id}`,
      label: `Random address on ${domain.domain}`,
      value: { kind: 'random', domain },
    });
  }
  for (const domain of list.domains) {
    items.push({ key: `c${domain.id}`, label: `Custom name on ${domain.domain}…`, value: { kind: 'custom', domain } });
  }
  for (const account of list.extmailAccounts) {
    items.push({
      key: `e${account.id}`,
      label: `External alias of ${account.email}`,
      value: { kind: 'extmail', account },
    });
  }
  if (list.extmailAccounts.length > 0) {
    items.push({ key: 'auto', label: 'External alias, picked for me', value: { kind: 'extmailAuto' } });
  }
  return items;
}

/** The create-session options of a choice (custom names add their prefix). */
export function sessionOptions(choice: NewChoice, prefix?: string): CreateSessionOptions {
  switch (choice.kind) {
    case 'random':
      return isAnyDomain(choice.domain) ? {} : { domainId: choice.domain.id, domain: choice.domain.domain };
    case 'custom':
      return isAnyDomain(choice.domain)
        ? { prefix }
        : { domainId: choice.domain.id, domain: choice.domain.domain, prefix };
    case 'extmail':
      return { useExtmail: true, extmailId: choice.account.id };
    case 'extmailAuto':
      return { useExtmail: true, extmailAuto: true };
  }
}
