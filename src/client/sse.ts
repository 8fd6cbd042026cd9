/**
 * Server-sent events (the WHATWG event-stream format) read from a byte stream: lines ending in LF, CR
 * or CRLF; `data:` lines joined with LF; a blank line dispatches; `:` lines are comments (keep-alives);
 * `event:` and `id:` are kept. A line over `maxLineBytes` or an event over `maxEventBytes` is dropped
 * rather than buffered without bound: what a hostile stream sends cannot exhaust memory.
 */

export interface ServerEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  id?: string;
}

const MAX_LINE = 64 * 1024;
const MAX_EVENT = 1024 * 1024;

/** Parses `chunks` into events, in order. */
export async function* readEvents(chunks: AsyncIterable<Buffer>, limits = { maxLineBytes: MAX_LINE, maxEventBytes: MAX_EVENT }): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let skipping = false;
  let data: string[] = [];
  let size = 0;
  let event = '';
  let id: string | undefined;
  let pendingCr = false;

  function* take(line: string): Generator<ServerEvent> {
    if (line === '') {
      if (data.length > 0 && size <= limits.maxEventBytes) yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
      data = [];
      size = 0;
      event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data.push(value);
      size += value.length + 1;
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }

  for await (const chunk of chunks) {
    let text = decoder.decode(chunk, { stream: true });
    // A CR at the end of the last chunk and an LF at the start of this one are one line end.
    if (pendingCr && text.startsWith('\n')) text = text.slice(1);
    pendingCr = false;
    buffer += text;
    for (;;) {
      const end = buffer.search(/[\r\n]/);
      if (end < 0) break;
      const line = buffer.slice(0, end);
      let rest = end + 1;
      if (buffer[end] === '\r') {
        if (end + 1 < buffer.length) {
          if (buffer[end + 1] === '\n') rest += 1;
        } else pendingCr = true;
      }
      buffer = buffer.slice(rest);
      if (skipping) {
        skipping = false;
        continue;
      }
      yield* take(line);
    }
    if (buffer.length > limits.maxLineBytes) {
      // The rest of this line is dropped, up to its end.
      buffer = '';
      skipping = true;
    }
  }
}
