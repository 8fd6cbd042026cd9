/**
 * What the app's own service (local mode) sets beyond serve's defaults. It serves this machine alone, so
 * a public instance's per-client limits (30 addresses, 300 messages a minute from one client) would only
 * stop an app under test here, and any name at its domains gets its inbox on its first message (a
 * catch-all, as in mailpit and MailHog). A `serve` keeps its defaults and has no catch-all. No server
 * code is imported here: a run against a remote service never loads it.
 */

/** Every per-client rate and connection share off (0 = no limit; the totals stay), and the catch-all on. */
export const LOCAL_SETTINGS = {
  createPerMinute: 0,
  httpRequestsPerMinute: 0,
  smtpMessagesPerMinute: 0,
  smtpRecipientsPerMinute: 0,
  smtpConnectionsPerClient: 0,
  httpConnectionsPerClient: 0,
  eventStreamsPerClient: 0,
  catchAll: true,
} as const;
