/**
 * The `tempmail` provider: the temporary-email interface of docs/server/http-api.md (the public service
 * mailtemp.us speaks it, the reference service `tempmail-tui serve` implements it) behind the provider
 * interface. Its wire client is tempmail-client.ts; this only hands it the session's token.
 */
import type { ApiOptions, MailProvider, ProviderInfo, TempMailApi } from '../client-types';
import { checkBaseUrl } from '../base-url';
import { createApi } from './tempmail-client';
import { watchTempmail } from './tempmail-events';

export const TEMPMAIL_INFO: ProviderInfo = {
  id: 'tempmail',
  label: 'tempmail',
  defaultBaseUrl: 'https://mailtemp.us/api/',
  offline: true,
  note: "any service of the temporary-email interface: mailtemp.us by default; offline against one on this machine (the app's own, or `tempmail-tui serve`)",
  limits: { lifetimeMinutes: null, requestsPerSecond: null, customNames: true, publicInbox: false, numericIds: true },
};

/** The tempmail provider on `api`, the wire client of the service at `baseUrl`. */
export function tempmailProvider(api: TempMailApi, baseUrl: string): MailProvider {
  return {
    info: TEMPMAIL_INFO,
    baseUrl: checkBaseUrl(baseUrl),
    listDomains: () => api.listDomains(),
    createSession: (options) => api.createSession(options),
    listMessages: (session) => api.checkMail(session.token),
    readMessage: (session, id) => api.readMail(session.token, id),
    deleteMessage: (session, id) => api.deleteMail(session.token, id),
    downloadAttachment: (session, messageId, attachment) =>
      api.downloadAttachment(session.token, messageId, attachment.id),
    readSource: (session, id) => api.readSource(session.token, id),
    // News of mail pushed where the service offers GET /events; polling goes on either way.
    ...(api.openEvents ? { watchMail: (session, events) => watchTempmail(api, session, events) } : {}),
  };
}

/** The tempmail provider for the service at `options.baseUrl`. Throws ApiError('bad_request') for a bad URL. */
export function createTempmailProvider(options: ApiOptions): MailProvider {
  return tempmailProvider(createApi(options), options.baseUrl);
}
