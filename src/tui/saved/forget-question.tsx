/**
 * "Forget this address?": y/n, or, for an address its provider can delete (a mail.tm account), a third
 * answer: D forgets it and deletes it there too. One question for the picker, the switcher and the inbox.
 */
import { PROVIDER_INFO } from '../../client/providers';
import type { ProviderId } from '../../model/mail-types';
import type { Screen } from '../keymap/keymap';
import { AskLines, confirmLines } from '../widgets/chrome';
import { useKeys } from '../widgets/use-keys';

/** What `deleteAddress` would do for an address of `provider` ("delete the mail.tm account"), if it can. */
export const deleteWording = (provider: ProviderId): string | undefined => PROVIDER_INFO[provider].deleteAddress;

/** The keymap screen that reads the answer. */
export const forgetScreen = (provider: ProviderId): Screen => (deleteWording(provider) ? 'forgetAccount' : 'confirm');

/** The question's lines at `columns`, its answers spelled out (wrapped; cut from the question, never the keys). */
export function forgetLines(email: string, provider: ProviderId, columns: number): string[] {
  const wording = deleteWording(provider);
  if (!wording) return confirmLines(`Forget ${email}? It cannot be reopened.`, columns);
  const answers = [
    `? y: here only · D: also ${wording} · other key: no`,
    '? y: here only · D: delete it there too · other key: no',
    '? y here · D there too',
  ];
  return confirmLines(`Forget ${email}`, columns, answers);
}

/** The question above the footer. */
export function ForgetLine({ email, provider, columns }: { email: string; provider: ProviderId; columns: number }) {
  return <AskLines lines={forgetLines(email, provider, columns)} columns={columns} />;
}

/** Reads the answer while `active`: `here` (y), `there` too (D, where the provider can), or neither. */
export function useForgetAnswer(
  provider: ProviderId | null,
  active: boolean,
  answer: (choice: 'here' | 'there' | 'no') => void,
): void {
  const screen = provider === null ? 'confirm' : forgetScreen(provider);
  useKeys(
    'confirm',
    { yes: () => answer('here'), no: () => answer('no') },
    { isActive: active && screen === 'confirm' },
  );
  useKeys(
    'forgetAccount',
    { yes: () => answer('here'), deleteAccount: () => answer('there'), no: () => answer('no') },
    { isActive: active && screen === 'forgetAccount' },
  );
}
