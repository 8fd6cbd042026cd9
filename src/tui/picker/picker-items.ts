/** The picker's choices: the saved addresses to resume, then what the service offers. */
import type { SavedSession } from '../../state/saved-sessions';
import { formatCountdown, secondsLeft } from '../../platform/time';
import { refusedNote } from '../wording/display-format';
import type { CreateSessionOptions, Domain, DomainList } from '../../model/mail-types';

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
export function savedItems(saved: readonly SavedSession[], now: number): PickerItem[] {
  const live = saved.filter((s) => s.expiresAt.getTime() > now);
  return [...live.filter((s) => !s.refusedAt), ...live.filter((s) => s.refusedAt)].map((session) => ({
    key: `s${session.email}`,
    label: `Resume ${session.email} (expires in ${formatCountdown(secondsLeft(session.expiresAt, new Date(now)))}${refusedNote(session)})`,
    value: { kind: 'saved', session },
  }));
}

/** Random and custom address per domain, an alias per external account, and "picked for me". */
export function pickerItems(list: DomainList): PickerItem[] {
  const items: PickerItem[] = [];
  for (const domain of list.domains) {
    items.push({ key: `r${domain.id}`, label: `Random address on ${domain.domain}`, value: { kind: 'random', domain } });
  }
  for (const domain of list.domains) {
    items.push({ key: `c${domain.id}`, label: `Custom name on ${domain.domain}…`, value: { kind: 'custom', domain } });
  }
  for (const account of list.extmailAccounts) {
    items.push({ key: `e${account.id}`, label: `External alias of ${account.email}`, value: { kind: 'extmail', account } });
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
      return { domainId: choice.domain.id };
    case 'custom':
      return { domainId: choice.domain.id, prefix };
    case 'extmail':
      return { useExtmail: true, extmailId: choice.account.id };
    case 'extmailAuto':
      return { useExtmail: true, extmailAuto: true };
  }
}
