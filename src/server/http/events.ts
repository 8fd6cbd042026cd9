/**
 * `GET /events`: a server-sent-events stream (text/event-stream) that tells a client holding a session's
 * token of each new message for it, so the client lists the inbox at once instead of at its next poll.
 *
 *   retry: 2000            sent first: how long a client waits before it connects again
 *   event: mail            a message was stored for this session (by this instance or, on Postgres, by
 *   data: {}               any instance on the database: MailService.watchInbox hears both)
 *   : keep-alive           a comment every `heartbeatMs`, so proxies and clients see the line is alive
 *                          (the answer's Tempmail-Heartbeat-Ms header says how often: a client that hears
 *                          nothing for a few of them knows the connection is gone without a word)
 *   event: expired         the session expired: the stream ends
 *
 * The news carries nothing but "list again" (the client reads the mail through the usual routes, so a
 * stream shows nothing the token could not read anyway). Streams are bounded per session, per client
 * (rateLimitKey: an IPv4 address, an IPv6 /64) and in all; past a bound a new one is refused (429 per
 * session or client, 503 in all) and the client keeps polling. Without the bound per client one client
 * held every stream there was (30 sessions a minute, 4 streams each: the 500 in four minutes), and
 * everyone else was refused push.
 * A stream ends when its session expires, is deleted (the admin API, of this instance or, on Postgres,
 * of any instance on the database), or the service closes. A client that
 * stops reading is not buffered for: news it has not taken is one owed `mail` event, written on drain.
 */
import type { ServerResponse } from 'node:http';
import type { MailService } from '../service/service-types';
import { ConnectionLimit } from '../limits/connection-limit';
import { eventStreamsPerClient, type ServerConfig } from '../config/server-config';
import { HttpError } from './params';

/** The bounds and pace of the streams (the configuration's; defaults and reasons in server-config.ts). */
export interface EventHubBounds {
  /** Streams one session may hold open at once. */
  perSession: number;
  /** Streams open at once in all. */
  total: number;
  /** Streams one client may hold open at once (0: only the total counts). */
  perClient: number;
  /** A keep-alive comment this often, ms. */
  heartbeatMs: number;
}

/** The bounds a configuration sets: at start, and again at each reload. */
export function eventHubBounds(config: ServerConfig): EventHubBounds {
  return {
    perSession: config.eventStreamsPerSession,
    total: config.eventStreamsTotal,
    perClient: eventStreamsPerClient(config),
    heartbeatMs: config.eventsHeartbeatMs,
  };
}

export interface EventHubOptions extends EventHubBounds {
  /** What a client is told to wait before it connects again, ms (default 2 s). */
  retryMs?: number;
  /** Clock for session expiry (default Date.now). */
  now?: () => number;
}

/** The session a stream is for, as the route found it. */
export interface StreamSession {
  token: string;
  /** The session's id: names it for the per-session bound and for closeSession(). */
  id: string;
  /** Epoch ms. */
  expiresAt: number;
  /** The client's address (the socket's, or the one a trusted proxy named). */
  client: string;
}

interface Stream {
  end(): void;
}

/** The answer header saying how often the stream speaks at the least (ms): a keep-alive comment at that pace. */
export const HEARTBEAT_HEADER = 'tempmail-heartbeat-ms';

// setTimeout takes at most 2^31-1 ms (~24.8 days); a session may live a year. Longer waits re-arm.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The open event streams of one HTTP front end. */
export class EventHub {
  private readonly bySession = new Map<string, Set<Stream>>();
  /** The streams in all and per client (rateLimitKey), counted as connections are. */
  private readonly counted: ConnectionLimit;
  private nextId = 0;
  private closed = false;
  private perSession: number;
  private heartbeatMs: number;
  private readonly retryMs: number;
  private readonly now: () => number;

  constructor(
    private readonly service: MailService,
    options: EventHubOptions,
  ) {
    this.perSession = options.perSession;
    this.counted = new ConnectionLimit({ total: options.total, perClient: options.perClient });
    this.heartbeatMs = options.heartbeatMs;
    this.retryMs = options.retryMs ?? 2_000;
    this.now = options.now ?? Date.now;
  }

  /** New bounds and heartbeat (a reload): streams open now keep theirs, new ones meet these. */
  configure(bounds: EventHubBounds): void {
    this.perSession = bounds.perSession;
    this.counted.update({ total: bounds.total, perClient: bounds.perClient });
    this.heartbeatMs = bounds.heartbeatMs;
  }

  /** Streams open now. */
  get size(): number {
    return this.counted.size;
  }

  /**
   * Answers `res` with the event stream of `session`. Throws an HttpError (nothing written yet) when a
   * bound is reached or the service is closing.
   */
  open(res: ServerResponse, session: StreamSession): void {
    if (this.closed)
      throw new HttpError(503, 'storage_unavailable', 'The service is shutting down; try again later', {
        'retry-after': '5',
      });
    const mine = this.bySession.get(session.id) ?? new Set<Stream>();
    if (mine.size >= this.perSession) {
      throw new HttpError(429, 'too_many_streams', `This address already has ${this.perSession} event streams open`, {
        'retry-after': '60',
      });
    }
    const id = String(++this.nextId);
    const verdict = this.counted.admit(id, session.client);
    if (!verdict.ok && verdict.reason === 'total') {
      throw new HttpError(503, 'too_many_streams', 'The service holds as many event streams as it can; keep polling', {
        'retry-after': '60',
      });
    }
    if (!verdict.ok) {
      throw new HttpError(
        429,
        'too_many_streams',
        `Too many event streams from your network address (at most ${verdict.limit} at once)`,
        { 'retry-after': '60' },
      );
    }
    let stream: Stream;
    try {
      stream = this.start(res, session, id);
    } catch (error) {
      this.counted.closed(id);
      throw error;
    }
    mine.add(stream);
    this.bySession.set(session.id, mine);
  }

  /** The headers of a stream's answer (a HEAD request gets these alone). */
  headers(): Record<string, string> {
    return {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      // nginx buffers answers by default: this one must pass at once.
      'x-accel-buffering': 'no',
      [HEARTBEAT_HEADER]: String(this.heartbeatMs),
    };
  }

  /** Ends every stream of session `id` (it was deleted). */
  closeSession(id: string): void {
    for (const stream of [...(this.bySession.get(id) ?? [])]) stream.end();
  }

  /** Ends every stream and refuses new ones (the service is closing). */
  close(): void {
    this.closed = true;
    for (const streams of [...this.bySession.values()]) for (const stream of [...streams]) stream.end();
  }

  private start(res: ServerResponse, session: StreamSession, id: string): Stream {
    let ended = false;
    // News the client has not taken yet (its socket is full): one `mail` event, written when it drains.
    let owed = false;
    let expiry: ReturnType<typeof setTimeout> | undefined;
    const write = (text: string) => {
      if (ended) return;
      if (res.writableNeedDrain) {
        if (text.startsWith('event: mail')) owed = true;
        return;
      }
      res.write(text);
    };
    const mail = () => write('event: mail\ndata: {}\n\n');
    const stream: Stream = {
      end: () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        clearTimeout(expiry);
        unwatch();
        this.counted.closed(id);
        const mine = this.bySession.get(session.id);
        if (mine?.delete(stream) && mine.size === 0) this.bySession.delete(session.id);
        if (!res.writableEnded) res.end();
      },
    };
    // The connection closes with the stream: a stream ended at shutdown leaves no idle socket behind.
    res.shouldKeepAlive = false;
    res.writeHead(200, this.headers());
    // Watching starts before the client sees the answer's headers: from then on no mail goes unsaid.
    const unwatch = this.service.watchInbox(session.token, mail, () => stream.end());
    res.write(`retry: ${this.retryMs}\n: tempmail-tui events\n\n`);
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), this.heartbeatMs);
    heartbeat.unref();
    const armExpiry = () => {
      const left = session.expiresAt - this.now();
      if (left <= 0) {
        write('event: expired\ndata: {}\n\n');
        stream.end();
        return;
      }
      expiry = setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS));
      expiry.unref();
    };
    armExpiry();
    res.on('drain', () => {
      if (!owed) return;
      owed = false;
      mail();
    });
    res.on('close', () => stream.end());
    res.on('error', () => stream.end());
    return stream;
  }
}
