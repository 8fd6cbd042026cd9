/**
 * Total time limits of an SMTP connection. smtp-server's socketTimeout is an idle timeout: every byte
 * resets it, so a client that trickles one byte at a time holds its connection (and one of the
 * maxClients slots) for ever, and 200 such clients shut everyone else out. Two clocks that nothing
 * extends: one per message (from the 354 that starts DATA to the final dot) and one per connection.
 * Past either, the client hears 421 4.4.2 and is disconnected; a message cut off was never acknowledged,
 * so its sender tries again. A message already being stored is answered first, then the connection goes.
 */
import type { SMTPServer, SMTPServerSession } from 'smtp-server';
import { logEvent } from '../observe/log';

/** One connection of smtp-server (its `connections` hold them). */
export type SmtpConnection = SMTPServer['connections'] extends Set<infer C> ? C : never;

export interface TimeLimits {
  /** Longest a connection may last, ms. */
  sessionMs: number;
  /** Longest DATA may take, from its 354 to the final dot, ms. */
  dataMs: number;
}

interface Tracked {
  connection: SmtpConnection;
  timer: NodeJS.Timeout;
  /** The message in DATA is cut off by this (drops what it kept); undefined outside DATA. */
  cutMessage?: () => void;
  /** Received in full and being stored: a 421 now would hide whether it was kept. */
  storing: boolean;
  /** The session ran out while a message was being stored: close once it is answered. */
  closeWhenAnswered: boolean;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Tracks the connections of one SMTP server and ends those that run out of time. */
export class SmtpTimeLimits {
  private readonly tracked = new Map<string, Tracked>();

  constructor(
    private readonly limits: TimeLimits,
    private readonly log: (line: string) => void,
  ) {}

  /** A connection was accepted: its session clock starts. */
  connected(connection: SmtpConnection): void {
    const id = connection.session.id;
    const timer = setTimeout(() => this.sessionOver(id), this.limits.sessionMs);
    timer.unref();
    this.tracked.set(id, { connection, timer, storing: false, closeWhenAnswered: false });
  }

  /**
   * DATA started (354 sent): its clock starts. `cut` is called if it runs out, before the 421, and must
   * let go of what the message kept. Returns the function to call once the final dot has arrived.
   */
  dataStarted(session: SMTPServerSession, cut: () => void): () => void {
    const entry = this.tracked.get(session.id);
    if (!entry) return () => undefined;
    const started = Date.now();
    const timer = setTimeout(() => {
      entry.cutMessage = undefined;
      cut();
      const text = `4.4.2 Message took too long to arrive (limit ${seconds(this.limits.dataMs)}), closing connection`;
      const line = `smtp cut off DATA from ${session.remoteAddress} after ${seconds(Date.now() - started)}: 421 ${text}`;
      logEvent(this.log, {
        level: 'warn',
        event: 'smtp.timeout',
        text: line,
        jsonFields: { client: session.remoteAddress, reason: 'data_timeout' },
      });
      entry.connection.send(421, text);
    }, this.limits.dataMs);
    timer.unref();
    entry.cutMessage = () => {
      clearTimeout(timer);
      cut();
    };
    return () => {
      clearTimeout(timer);
      entry.cutMessage = undefined;
      entry.storing = true;
    };
  }

  /**
   * The message is answered (stored, refused or cut). True when the connection was closed because its
   * time ran out meanwhile (the caller has nothing more to say on it).
   */
  answered(session: SMTPServerSession): boolean {
    const entry = this.tracked.get(session.id);
    if (!entry) return false;
    entry.storing = false;
    entry.cutMessage = undefined;
    if (!entry.closeWhenAnswered) return false;
    this.close(entry, session.remoteAddress);
    return true;
  }

  /** The connection is gone: forget it. */
  closed(sessionId: string): void {
    const entry = this.tracked.get(sessionId);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.cutMessage?.();
    this.tracked.delete(sessionId);
  }

  private sessionOver(id: string): void {
    const entry = this.tracked.get(id);
    if (!entry) return;
    if (entry.storing) {
      entry.closeWhenAnswered = true;
      return;
    }
    entry.cutMessage?.();
    entry.cutMessage = undefined;
    this.close(entry, entry.connection.session.remoteAddress);
  }

  private close(entry: Tracked, remote: string): void {
    const text = `4.4.2 Connection time limit reached (${seconds(this.limits.sessionMs)}), closing connection`;
    logEvent(this.log, {
      level: 'warn',
      event: 'smtp.timeout',
      text: `smtp closed the connection from ${remote}: 421 ${text}`,
      jsonFields: { client: remote, reason: 'session_timeout' },
    });
    entry.connection.send(421, text);
  }
}
