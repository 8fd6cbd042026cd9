/**
 * An SSH channel as the terminal Ink draws on. A channel has no line discipline: LF becomes CR LF here,
 * and Ink is told the size itself (columns, rows, a 'resize' event; Ink issue #411), from the pty request
 * and each window change, bounded so a 0x0 or 10000x10000 window draws a sane frame, and resizes come
 * at most once a frame time however many arrive. Keys come in through a stdin with `isTTY` and a raw
 * mode that does nothing (the client's terminal is raw already).
 */
import { PassThrough, Writable } from 'node:stream';

export const MIN_COLUMNS = 20;
export const MAX_COLUMNS = 500;
export const MIN_ROWS = 5;
export const MAX_ROWS = 200;
/** Output the client has not read past this ends the session: a channel never read must not grow memory. */
export const MAX_UNREAD_BYTES = 4 * 1024 * 1024;
const RESIZE_EVERY_MS = 50;
/**
 * Keys from the client not yet taken by the app past this are dropped: while no screen reads keys (Ink
 * lets go of stdin between screens), they would otherwise pile up here for as long as a client sends.
 */
export const MAX_UNTAKEN_INPUT_BYTES = 64 * 1024;

export interface Sink {
  write(data: string): boolean;
  /** Bytes written but not yet taken by the client. */
  readonly writableLength: number;
}

export interface ChannelTerminal {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** Keys from the client. */
  input(data: Buffer): void;
  resize(columns: number, rows: number): void;
  dispose(): void;
}

const clamp = (value: number, min: number, max: number, fallback: number) =>
  Number.isFinite(value) && value > 0 ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;

/** The size Ink is told for a window of `columns` x `rows` (0 = unknown: 80x24). */
export function boundedSize(columns: number, rows: number): { columns: number; rows: number } {
  return { columns: clamp(columns, MIN_COLUMNS, MAX_COLUMNS, 80), rows: clamp(rows, MIN_ROWS, MAX_ROWS, 24) };
}

export function channelTerminal(
  sink: Sink,
  size: { columns: number; rows: number },
  onOverflow: () => void,
): ChannelTerminal {
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: () => stdin,
    // Nothing to hold the process open for: the service's listeners do.
    ref: () => stdin,
    unref: () => stdin,
  });
  stdin.setEncoding('utf8');
  let current = boundedSize(size.columns, size.rows);
  const stdout = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      sink.write(text.replace(/(?<!\r)\n/g, '\r\n'));
      if (sink.writableLength > MAX_UNREAD_BYTES) onOverflow();
      done();
    },
  });
  Object.assign(stdout, { isTTY: true });
  Object.defineProperty(stdout, 'columns', { get: () => current.columns });
  Object.defineProperty(stdout, 'rows', { get: () => current.rows });
  let pending: { columns: number; rows: number } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const apply = () => {
    timer = undefined;
    if (!pending) return;
    const next = pending;
    pending = undefined;
    if (next.columns === current.columns && next.rows === current.rows) return;
    current = next;
    stdout.emit('resize');
    timer = setTimeout(apply, RESIZE_EVERY_MS);
  };
  return {
    stdin: stdin as unknown as NodeJS.ReadStream,
    stdout: stdout as unknown as NodeJS.WriteStream,
    input(data) {
      if (stdin.readableLength + stdin.writableLength + data.length <= MAX_UNTAKEN_INPUT_BYTES) stdin.write(data);
    },
    resize(columns, rows) {
      pending = boundedSize(columns, rows);
      timer ??= setTimeout(apply, 0);
    },
    dispose() {
      clearTimeout(timer);
      stdin.end();
    },
  };
}
