/** How the screens name a provider and what they say about it (picker lines, header, switcher rows). */
import { PROVIDER_INFO, type ProviderRef } from '../../client/providers';
import { safeLine } from '../../text/safe-text';
import { textWidth } from '../../text/text-width';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/** True for the app's in-process service's key ("local:<data dir>"). */
export const isLocalKey = (ref: ProviderRef): boolean =>
  ref.provider === 'tempmail' && ref.baseUrl.startsWith('local:');

/**
 * A provider's name in a few words: "mail.tm", "Guerrilla Mail", "local service" (the in-process one),
 * "this machine" (a service on loopback), or a tempmail service's host ("mailtemp.us").
 */
export function providerName(ref: ProviderRef): string {
  if (ref.provider !== 'tempmail') return PROVIDER_INFO[ref.provider].label;
  if (isLocalKey(ref)) return 'local service';
  try {
    const url = new URL(ref.baseUrl);
    if (LOOPBACK.test(url.hostname)) return 'this machine';
    return safeLine(url.host, 100);
  } catch {
    return 'tempmail';
  }
}

/**
 * "Service: https://mail.example/api": a tempmail service as the picker names it, scheme and all
 * (http:// where https:// was meant is a mistake to see at a glance), never user:password.
 */
export function serviceLabel(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    const path = url.pathname === '/' ? '' : url.pathname;
    return `Service: ${safeLine(`${url.protocol}//${url.host}${path}`, 200)}`;
  } catch {
    return 'Service: (configured)';
  }
}

/** The picker's line about where new addresses go, for a provider other than the in-process service. */
export function providerLine(ref: ProviderRef): string {
  if (ref.provider === 'tempmail') return serviceLabel(ref.baseUrl);
  const info = PROVIDER_INFO[ref.provider];
  let host = '';
  try {
    host = ` (${safeLine(new URL(ref.baseUrl).host, 100)})`;
  } catch {
    // A key, not a URL: the name alone.
  }
  return `Provider: ${info.label}${host}`;
}

// What to know about creating on each, longest wording first: the picker takes the longest that fits
// its width with the way to the next provider (" · p: mail.tm") kept whole.
const LOCAL_NOTES = [
  'Only mail sent from this machine arrives here: a website cannot reach it',
  'Only mail sent from this machine arrives here',
  'Mail from this machine only',
];
const NOTES: Record<Exclude<ProviderRef['provider'], 'tempmail'>, readonly string[]> = {
  mailtm: [
    'mail.tm: Public: any website can send here; the account has no expiry',
    'mail.tm: public, any website can send here; no expiry',
    'mail.tm: public; no expiry',
  ],
  guerrilla: [
    'Guerrilla Mail: Public; anyone who types the same name reads the inbox; 60 minutes',
    'Guerrilla Mail: public; anyone typing the name reads it; 60 min',
    'Guerrilla Mail: public inbox; 60 min',
  ],
  tempmaillol: [
    'TempMail.lol: Public: any website can send here; it picks the domain; one hour',
    'TempMail.lol: public; it picks the domain; 1 hour',
    'TempMail.lol: public; 1 hour',
  ],
};

/**
 * What to know about creating on `ref`, and what `p` does: a local address only receives mail sent on
 * this machine, so the picker says so and names the provider one key away. Fitted to `columns`: a
 * shorter wording before the way to the next provider is ever cut.
 */
export function providerNote(
  ref: ProviderRef,
  next: ProviderRef | undefined,
  columns = Number.POSITIVE_INFINITY,
): { text: string; warn: boolean } {
  const switchTo = next ? ` · p: ${providerName(next)}` : '';
  const local = isLocalKey(ref);
  const notes = local
    ? LOCAL_NOTES
    : ref.provider === 'tempmail'
      ? ['A service of the temporary-email interface', 'A tempmail service']
      : NOTES[ref.provider];
  const text = notes.find((n) => textWidth(n + switchTo) <= columns) ?? notes.at(-1)!;
  return { text: `${text}${switchTo}`, warn: local };
}
