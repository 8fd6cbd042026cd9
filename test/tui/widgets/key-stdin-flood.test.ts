/**
 * The one-key-at-a-time stdin (src/tui/widgets/key-stdin.ts) under a flood: keys that arrive faster than
 * the app takes them wait in a bounded queue (an SSH client sending without end must not grow the
 * service's memory); past it they are dropped, and once the app has caught up keys are taken again.
 */
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { keyByKey, MAX_QUEUED_KEYS } from '../../../src/tui/widgets/key-stdin';
import { waitFor } from '../../harness/wait';

function source(): EventEmitter & { chunks: string[] } {
  return Object.assign(new EventEmitter(), {
    chunks: [] as string[],
    isTTY: true,
    read(this: { chunks: string[] }): string | null {
      return this.chunks.shift() ?? null;
    },
    setEncoding: () => undefined,
    setRawMode: () => undefined,
    ref: () => undefined,
    unref: () => undefined,
  });
}

describe('keys under a flood', () => {
  it('keeps at most MAX_QUEUED_KEYS waiting, drops the rest, and takes keys again once caught up', async () => {
    const real = source();
    const keys = keyByKey(real as unknown as NodeJS.ReadStream);
    const got: string[] = [];
    keys.on('readable', () => {
      for (let key = keys.read() as string | null; key !== null; key = keys.read() as string | null) got.push(key);
    });
    // Far more than the bound, in one read's worth of chunks, as a client that never stops sends them.
    for (let i = 0; i < 5; i++) real.chunks.push('j'.repeat(MAX_QUEUED_KEYS));
    real.emit('readable');
    await waitFor(() => got.length >= MAX_QUEUED_KEYS || undefined, { timeoutMs: 20_000, message: 'the queued keys' });
    real.chunks.push('q');
    real.emit('readable');
    await waitFor(() => got.includes('q') || undefined, { timeoutMs: 20_000, message: 'the key after the flood' });
    expect(got.length).toBe(MAX_QUEUED_KEYS + 1);
    expect(got.slice(0, -1).every((key) => key === 'j')).toBe(true);
  });
});
