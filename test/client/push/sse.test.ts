/** The event-stream reader: the WHATWG format's line ends, fields, comments, and bounds on what it buffers. */
import { describe, expect, it } from 'vitest';
import { EVENT_LIMITS, readEvents } from '../../../src/client/push/sse';

async function events(chunks: string[], limits?: { maxLineBytes: number; maxEventBytes: number }) {
  async function* source() {
    for (const c of chunks) yield Buffer.from(c, 'utf8');
  }
  const out = [];
  for await (const e of readEvents(source(), limits)) out.push(e);
  return out;
}

describe('server-sent events', () => {
  it('joins data lines, keeps event and id, skips comments, dispatches on a blank line', async () => {
    expect(
      await events([':keep-alive\n\n', 'id: 7\nevent: update\ndata: {"a":\ndata: 1}\n\n', 'data: two\n\n']),
    ).toEqual([
      { event: 'update', data: '{"a":\n1}', id: '7' },
      { event: 'message', data: 'two', id: '7' },
    ]);
  });

  it('takes LF, CR and CRLF line ends, split anywhere between chunks, and UTF-8 split mid-character', async () => {
    const text = 'data: caf\u00e9 \u{1F600}\r\n\r\ndata: b\rdata: c\r\r';
    const bytes = Buffer.from(text, 'utf8');
    const split = [...bytes].map((b) => Buffer.from([b]));
    async function* source() {
      yield* split;
    }
    const out = [];
    for await (const e of readEvents(source())) out.push(e.data);
    expect(out).toEqual(['caf\u00e9 \u{1F600}', 'b\nc']);
  });

  it('stops with a bad response at an over-long line or an over-large event, whether or not it ends', async () => {
    const limits = { maxLineBytes: 32, maxEventBytes: 40 };
    const refused = (chunks: string[]) =>
      expect(events(chunks, limits)).rejects.toMatchObject({ name: 'ApiError', kind: 'bad_response' });
    // A line past the bound, ended or still open.
    await refused([`data: ${'x'.repeat(100)}\n\ndata: ok\n\n`]);
    await refused([`data: ${'x'.repeat(20)}`, 'y'.repeat(100)]);
    // Data lines each under the line bound, together over the event bound.
    await refused(['data: 0123456789012345678901234\ndata: 0123456789012345678901234\n\ndata: small\n\n']);
    // Up to the bounds is fine.
    expect(await events(['data: 0123456789012345678901234\n\ndata: 0123456789\ndata: 0123456789\n\n'], limits)).toEqual(
      [
        { event: 'message', data: '0123456789012345678901234' },
        { event: 'message', data: '0123456789\n0123456789' },
      ],
    );
  });

  it('bounds the event being assembled as it arrives: data lines that never end an event are not all read', async () => {
    // 64 MiB of 60 KB data lines with no blank line (a hostile hub). Reading must stop at the 1 MiB event
    // bound, a few lines in; before, every line was kept until a blank line that never came.
    const line = Buffer.from(`data: ${'x'.repeat(60 * 1024)}\n`);
    const lines = Math.ceil((64 * 1024 * 1024) / line.length);
    let pulled = 0;
    async function* flood() {
      for (let i = 0; i < lines; i++) {
        pulled += 1;
        yield line;
      }
    }
    const read = async () => {
      for await (const _ of readEvents(flood())) throw new Error('no event ends in this stream');
    };
    await expect(read()).rejects.toMatchObject({
      kind: 'bad_response',
      message: expect.stringContaining('an event longer than 1 MiB'),
    });
    // The line that took the event past 1 MiB is the last one read (each adds 60 KiB and its line end).
    expect(pulled).toBe(Math.floor(EVENT_LIMITS.maxEventBytes / (60 * 1024 + 1)) + 1);
  });
});
