/** How the screens name a provider and what they say about it (picker lines, header, switcher rows). */
import { PROVIDER_INFO, type ProviderRef } from '../../client/providers';
import { safeLine } from '../../text/safe-text';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i;

/** True for the app's in-process service's key ("local:<data dir>"). */
export const isLocalKey = (ref: ProviderRef): boolean => ref.provider === 'tempmail' && ref.baseUrl.startsWith('local:');

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

/** "Service: mail.example/api": a tempmail service as the picker names it (never user:password). */
export function serviceLabel(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    const path = url.pathname === '/' ? '' : url.pathname;
    return `Service: ${safeLine(`${url.host}${path}`, 200)}`;
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

/**
 * What to know about creating on `ref`, and what `p` does: a local address only receives mail sent on
 * this machine, so the picker says so and names the public provider one key away.
 */
export function providerNote(ref: ProviderRef, next: ProviderRef | undefined): { text: string; warn: boolean } {
  const switchTo = next ? ` · p: ${providerName(next)}` : '';
  if (isLocalKey(ref)) {
    return { text: `Only mail sent from this machine arrives here: a website cannot reach it${switchTo}`, warn: true };
  }
  if (ref.provider === 'tempmail') return { text: `A service of the temporary-email interface${switchTo}`, warn: false };
  const info = PROVIDER_INFO[ref.provider];
  const note =
    ref.provider === 'guerrilla'
      ? 'Public; anyone who types the same name reads the inbox; 60 minutes'
      : 'Public: any website can send here; the account has no expiry';
  return { text: `${info.label}: ${note}${switchTo}`, warn: false };
}
