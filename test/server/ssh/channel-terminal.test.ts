/**
 * The channel as Ink's terminal: LF becomes CR LF (a channel has no line discipline), the size is
 * bounded, a flood of window changes reaches Ink as few resizes, each with the last size, and output a
 * client does not read past the bound ends the session, and keys the app does not take are kept up to a
 * bound.
 */
import { describe, expect, it } from 'vitest';
import {
  boundedSize,
  channelTerminal,
  MAX_UNREAD_BYTES,
  MAX_UNTAKEN_INPUT_BYTES,
} from '../../../src/server/ssh/channel-terminal';
import { waitFor } from '../../harness/wait';

function sink() {
  const written: string[] = [];
  return { written, writableLength: 0, write: (d: string) => written.push(d) > 0 };
}

describe('channel terminal', () => {
  it('turns LF into CR LF and leaves CR LF alone', () => {
    const s = sink();
    const t = channelTerminal(s, { columns: 80, rows: 24 }, () => undefined);
    t.stdout.write('a\nb\r\nc\n');
    expect(s.written.join('')).toBe('a\r\nb\r\nc\r\n');
  });

  it('bounds the size: 0x0 is 80x24, 10000x10000 is at most 500x200', () => {
    expect(boundedSize(0, 0)).toEqual({ columns: 80, rows: 24 });
    expect(boundedSize(10_000, 10_000)).toEqual({ columns: 500, rows: 200 });
    expect(boundedSize(3, 2)).toEqual({ columns: 20, rows: 5 });
  });

  it('tells Ink of a thousand window changes in few resizes, ending with the last size', async () => {
    const t = channelTerminal(sink(), { columns: 80, rows: 24 }, () => undefined);
    let resizes = 0;
    t.stdout.on('resize', () => resizes++);
    for (let i = 0; i < 1000; i++) t.resize(40 + (i % 50), 10 + (i % 30));
    await waitFor(() => (t.stdout.columns === 40 + (999 % 50) && t.stdout.rows === 10 + (999 % 30)) || undefined, {
      timeoutMs: 5000,
    });
    expect(resizes).toBeLessThan(10);
    t.dispose();
  });

  it('keeps a bounded amount of the keys nobody takes, and takes keys again once read', () => {
    const t = channelTerminal(sink(), { columns: 80, rows: 24 }, () => undefined);
    const chunk = Buffer.alloc(1024, 'j');
    for (let i = 0; i < 1024; i++) t.input(chunk);
    // What waits to be read, and what waits to get there (the stream counts a chunk on both sides for a
    // moment: one chunk more at most).
    const held = t.stdin.readableLength + (t.stdin as unknown as { writableLength: number }).writableLength;
    expect(held).toBeLessThanOrEqual(MAX_UNTAKEN_INPUT_BYTES + chunk.length);
    expect(held).toBeGreaterThan(MAX_UNTAKEN_INPUT_BYTES / 2);
    while (t.stdin.read() !== null);
    t.input(Buffer.from('q'));
    expect(t.stdin.read()).toBe('q');
  });

  it('calls for the end of the session when the client leaves too much unread', () => {
    const s = { ...sink(), writableLength: MAX_UNREAD_BYTES + 1 };
    let overflowed = false;
    const t = channelTerminal(s, { columns: 80, rows: 24 }, () => (overflowed = true));
    t.stdout.write('x');
    expect(overflowed).toBe(true);
  });
});
