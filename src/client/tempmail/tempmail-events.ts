/**
 * A tempmail service's news of mail: GET /events (the reference service offers it, and says so in its
 * Tempmail-Capabilities header), a server-sent-events stream with an `event: mail` for each message
 * stored for the session, watched by event-watch.ts. Where the service does not offer it the watch ends
 * at once (down); a refused or expired token ends it too (the inbox's polling says why). Each time a
 * stream opens the inbox lists once: mail stored before the service watched for it (since the last
 * check, or while a lost stream was away) is said then; the service watches before it answers, so
 * nothing falls between.
 */
import { ApiError } from '../api-error';
import type { MailWatch, MailWatchEvents, TempMailApi } from '../client-types';
import { isFatalStreamError, watchEventStream } from '../push/event-watch';
import type { Session } from '../../model/mail-types';
import type { HttpStream } from '../http/http-client';

/** What the service says of its keep-alive pace (src/server/http/events.ts). */
const HEARTBEAT_HEADER = 'tempmail-heartbeat-ms';

/**
 * How long a stream may be silent: three of the heartbeats its answer announced (a late one or two is
 * a slow network, not a lost one), or no limit when it announced none, or nothing sensible.
 */
function silenceAllowed(stream: HttpStream): number | undefined {
  const said = stream.headers[HEARTBEAT_HEADER];
  if (typeof said !== 'string' || !/^\d{1,10}$/.test(said)) return undefined;
  const ms = Number(said);
  return ms >= 1000 && ms <= 3_600_000 ? 3 * ms : undefined;
}

/** Watches `session`'s inbox through `api`'s event stream. */
export function watchTempmail(api: TempMailApi, session: Session, events: MailWatchEvents): MailWatch {
  return watchEventStream(
    {
      async open() {
        const stream = await api.openEvents?.(session.token);
        if (!stream) throw new ApiError('not_found', 'This service does not stream news of mail');
        return stream;
      },
    },
    events,
    {
      isMail: (event) => event.event === 'mail',
      isEnd: (event) => event.event === 'expired',
      isFatal: isFatalStreamError,
      mailOnOpen: true,
      idleMs: silenceAllowed,
    },
  );
}
