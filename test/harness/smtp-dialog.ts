/**
 * A bare SMTP client for tests that must say exactly what they want (half a message, odd commands,
 * a disconnect mid-DATA), which nodemailer would tidy up. Real TCP to the loopback service.
 */
import net from 'node:net';
import type { SmtpTarget } from './service';

export interface SmtpDialog {
  /** The greeting line(s). */
  greeting: string;
  /** Sends one command line (CRLF added) and resolves with the complete reply (all lines). */
  command(line: string): Promise<string>;
  /** Sends bytes as they are, without waiting for a reply. */
  write(bytes: string | Buffer): void;
  /** Waits for the next complete reply (e.g. after the final dot of DATA). */
  reply(): Promise<string>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  /** This end's TCP port (tells the connection apart in a trace of the server). */
  localPort: number;
  destroy(): void;
}

/**
 * Opens a connection and reads the greeting. `from` binds this end to a loopback address of its own
 * (127.0.0.5 connecting to 127.0.0.1): a distinct client for the per-client limits. `preface` is written
 * as soon as the connection is open, before the greeting (a load balancer's PROXY header).
 */
export function openSmtp(target: SmtpTarget, timeoutMs = 10_000, from?: string, preface?: Buffer): Promise<SmtpDialog> {
  return new Promise((resolveOpen, rejectOpen) => {
    const socket = net.connect({
      port: target.smtpPort,
      host: target.smtpHost,
      ...(from ? { localAddress: from } : {}),
    });
    if (preface) socket.write(preface);
    let buffer = '';
    const waiters: { resolve: (reply: string) => void; reject: (error: Error) => void }[] = [];
    let failure: Error | undefined;
    let resolveClosed!: () => void;
    const closed = new Promise<void>((r) => (resolveClosed = r));

    const pump = () => {
      // A reply is complete at a line "NNN text" (space after the code, not "NNN-").
      for (;;) {
        const match = /(^|\r\n)\d{3}(?: [^\r\n]*)?\r\n/.exec(buffer);
        if (!match || waiters.length === 0) return;
        const end = match.index + match[0].length;
        const reply = buffer.slice(0, end).replace(/\r\n$/, '');
        buffer = buffer.slice(end);
        waiters.shift()!.resolve(reply);
      }
    };
    const next = () =>
      new Promise<string>((resolve, reject) => {
        if (failure) return reject(failure);
        const timer = setTimeout(() => reject(new Error(`no SMTP reply within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        pump();
      });

    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      pump();
    });
    const fail = (error: Error) => {
      failure = error;
      for (const w of waiters.splice(0)) w.reject(error);
    };
    socket.on('error', (error) => {
      fail(error);
      rejectOpen(error);
    });
    socket.on('close', () => {
      fail(new Error('connection closed'));
      resolveClosed();
    });
    next().then(
      (greeting) =>
        resolveOpen({
          greeting,
          command(line) {
            socket.write(`${line}\r\n`);
            return next();
          },
          write(bytes) {
            socket.write(bytes);
          },
          reply: next,
          closed,
          localPort: socket.localPort ?? 0,
          destroy: () => socket.destroy(),
        }),
      rejectOpen,
    );
  });
}
