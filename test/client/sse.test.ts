/** The event-stream reader: the WHATWG format's line ends, fields, comments, and bounds on what it buffers. */
import { describe, expect, it } from 'vitest';
import { readEvents } from '../../src/client/sse';

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
    expect(await events([':keep-alive\n\n', 'id: 7\nevent: update\ndata: {"a":\ndata: 1}\n\n', 'data: two\n\n'])).toEqual([
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

  it('drops an over-long line and an over-large event instead of buffering them', async () => {
    const limits = { maxLineBytes: 32, maxEventBytes: 40 };
    expect(await events([`data: ${'x'.repeat(100)}`, 'y'.repeat(100), '\n\ndata: ok\n\n'], limits)).toEqual([{ event: 'message', data: 'ok' }]);
    expect(await events(['data: 0123456789012345678901234\ndata: 0123456789012345678901234\n\ndata: small\n\n'], limits)).toEqual([
      { event: 'message', data: 'small' },
    ]);
  });
});
