/** mail.tm as people meet it (limits, name rules), and where it publishes new mail. */
import type { ProviderInfo } from '../client-types';

export const MAILTM_INFO: ProviderInfo = {
  id: 'mailtm',
  label: 'mail.tm',
  defaultBaseUrl: 'https://api.mail.tm/',
  offline: false,
  note: 'public: any website can mail it; an account (its password stays in the private sessions file) with no expiry',
  limits: {
    lifetimeMinutes: null,
    requestsPerSecond: 8,
    customNames: true,
    publicInbox: false,
    numericIds: false,
    // What mail.tm accepts for the part before the @ (it answers 422 "This value is not valid." otherwise).
    names: { min: 3, max: 64, pattern: /^[a-z0-9._-]+$/, chars: 'a-z, 0-9, ".", "_" and "-"' },
  },
  deleteAddress: 'delete the mail.tm account (its mail is gone for good)',
};

/**
 * Where mail.tm publishes new mail (Mercure): https://api.mail.tm/ -> https://mercure.mail.tm/.well-known/mercure
 * (mail.gw the same way); any other base (a proxy, a test's fake) serves it itself under .well-known/mercure.
 */
export function mercureUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.hostname.startsWith('api.')) {
    url.hostname = `mercure.${url.hostname.slice(4)}`;
    url.pathname = '/';
  }
  return new URL('.well-known/mercure', url).href;
}
