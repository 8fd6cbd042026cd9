/** The picker's choices, built from what the service offers. */
import type { CreateSessionOptions, Domain, DomainList } from '../../core/types';

export type PickerChoice =
  | { kind: 'random'; domain: Domain }
  | { kind: 'custom'; domain: Domain }
  | { kind: 'extmail'; account: { id: number; email: string } }
  | { kind: 'extmailAuto' };

export interface PickerItem {
  key: string;
  label: string;
  value: PickerChoice;
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
export function sessionOptions(choice: PickerChoice, prefix?: string): CreateSessionOptions {
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
