/** The picker's custom-name input worded: its title, the address being typed, and the verdict on it. */
import type { Domain } from '../../model/mail-types';

/** What the input shows for `value` on `domain`; `who`: the provider that picks the domain, when it does. */
export function customNameWords(
  value: string,
  domain: Domain,
  who: string,
  check: { problem: string | null; taken: boolean },
): { title: string; at: string; verdict: string } {
  // A provider that picks the domain (TempMail.lol) also adds characters of its own after the name.
  const any = domain.domain === '';
  const at = any ? `@${who}'s domain` : `@${domain.domain}`;
  const address = `${value || 'name'}${any ? '…' : ''}${at}`;
  let verdict = check.problem ? `✗ ${check.problem}` : `✓ ${address}`;
  if (check.taken && !check.problem) verdict = `✗ ${address} is taken, try another`;
  const title = `${any ? 'Custom name' : `Custom name on ${domain.domain}`} (Enter creates it, Esc goes back):`;
  return { title, at, verdict };
}
