/**
 * What the app says about how long an address lasts, per provider: a mail.tm account never expires
 * (saying "until it expires" of it was wrong), a Guerrilla Mail or TempMail.lol address lasts an hour, a
 * tempmail service's as long as the service says.
 */
import type { ProviderInfo } from '../../client/client-types';

/** The end of "Leave X for a new address? …": what happens to the address left. */
export function keepsWorking(info: ProviderInfo, expires: boolean): string {
  if (!expires) return `It keeps working: ${info.label} accounts do not expire (x deletes one).`;
  return 'It keeps working until it expires.';
}
