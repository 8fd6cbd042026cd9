/**
 * A minimal SMTP sender for the load: one connection, one command at a time, the message bytes built
 * once. A full client library would spend more CPU per message than the servers we measure (two cores
 * are shared by the sender and the server), and hide what we want to see.
 */
import { connect, type Socket } from 'node:net';

export interface Reply {
  code: number;
  text: string;
}

/** The message as it goes after DATA: CRLF lines, dot-stuffed, ended by CRLF.CRLF. */
export function dataPayload(raw: string): Buffer {
  const lines = raw.replace(/\r?\n/g, '\r\n').split('\r\n');
  return Buffer.from(`${lines.map((l) => (l.startsWith('.') ? `.${l}` : l)).join('\r\n')}\r\n.\r\n`, 'utf8');
}

/** One SMTP connection. */
export class SmtpConnection {
  private buffer = '';
  private lines: string[] = [];
  private waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk.toString('latin1')));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('SMTP connection closed')));
  }

  /** Connects and says EHLO. */
  static async open(host: string, port: number): Promise<SmtpConnection> {
    const socket = connect({ host, port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const c = new SmtpConnection(socket);
    await c.expect(await c.reply(), 220, 'greeting');
    await c.expect(await c.command('EHLO bench.test'), 250, 'EHLO');
    return c;
  }

  /** Sends one message; resolves with performance.now() when the final 250 arrived. */
  async send(from: string, to: string, payload: Buffer): Promise<number> {
    await this.expect(await this.command(`MAIL FROM:<${from}>`), 250, 'MAIL FROM');
    await this.expect(await this.command(`RCPT TO:<${to}>`), 250, 'RCPT TO');
    await this.expect(await this.command('DATA'), 354, 'DATA');
    this.socket.write(payload);
    await this.expect(await this.reply(), 250, 'end of DATA');
    return performance.now();
  }

  async close(): Promise<void> {
    if (!this.socket.destroyed) {
      this.socket.write('QUIT\r\n');
      this.socket.end();
    }
    await new Promise<void>((resolve) => (this.socket.closed ? resolve() : this.socket.once('close', () => resolve())));
  }

  private command(line: string): Promise<Reply> {
    const reply = this.reply();
    this.socket.write(`${line}\r\n`);
    return reply;
  }

  private reply(): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.drain();
    });
  }

  private fail(error: Error): void {
    this.failure ??= error;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  private async expect(reply: Reply, code: number, what: string): Promise<void> {
    if (reply.code !== code) throw new Error(`SMTP ${what}: expected ${code}, got ${reply.code} ${reply.text}`);
  }

  private onData(text: string): void {
    this.buffer += text;
    for (let i = this.buffer.indexOf('\r\n'); i >= 0; i = this.buffer.indexOf('\r\n')) {
      this.lines.push(this.buffer.slice(0, i));
      this.buffer = this.buffer.slice(i + 2);
    }
    this.drain();
  }

  /** Hands a complete reply (its last line is "NNN text", not "NNN-text") to the waiting caller. */
  private drain(): void {
    if (!this.waiting) return;
    const last = this.lines.findIndex((l) => /^\d{3}(?: |$)/.test(l));
    if (last < 0) return;
    const lines = this.lines.splice(0, last + 1);
    const { resolve } = this.waiting;
    this.waiting = undefined;
    resolve({ code: Number(lines[last]!.slice(0, 3)), text: lines.map((l) => l.slice(4)).join('\n') });
  }
}
