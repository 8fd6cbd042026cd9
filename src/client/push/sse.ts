/**
 * Server-sent events (the WHATWG event-stream format) read from a byte stream: lines ending in LF, CR
 * or CRLF; `data:` lines joined with LF; a blank line dispatches; `:` lines are comments (keep-alives);
 * `event:` and `id:` are kept. What it holds is bounded while it reads, not when an event ends: the line
 * being read (`maxLineBytes`) and the event being assembled (`maxEventBytes`, its data lines together).
 * A stream past either bound is broken or hostile (a hub that streams data lines and never the blank
 * line that ends an event): reading stops with a bad_response ApiError, and the caller opens it again
 * after its backoff. So what a stream sends can cost neither memory nor, read without end, the CPU.
 */
import { ApiError } from '../api-error';

export interface ServerEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  id?: string;
}

/** Bounds in UTF-16 units of decoded text (a byte or less of UTF-8 each for the ASCII a hub sends). */
export interface EventLimits {
  maxLineBytes: number;
  maxEventBytes: number;
}

// A mail.tm event is a message summary (~1 KB of JSON): 64 KiB a line and 1 MiB an event are far past it.
export const EVENT_LIMITS: Readonly<EventLimits> = Object.freeze({
  maxLineBytes: 64 * 1024,
  maxEventBytes: 1024 * 1024,
});

const size = (n: number) => (n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MiB` : `${Math.round(n / 1024)} KiB`);
const tooLong = (what: string, limit: number) =>
  new ApiError('bad_response', `The event stream sent ${what} longer than ${size(limit)}; it was closed`);

/** Parses `chunks` into events, in order; throws an ApiError('bad_response') once a bound is passed. */
export async function* readEvents(
  chunks: AsyncIterable<Buffer>,
  limits: EventLimits = EVENT_LIMITS,
): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let data: string[] = [];
  let held = 0;
  let event = '';
  let id: string | undefined;
  let pendingCr = false;

  function* take(line: string): Generator<ServerEvent> {
    if (line === '') {
      if (data.length > 0)
        yield { event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) };
      data = [];
      held = 0;
      event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      // Counted as it is added: the event being assembled never holds more than the bound.
      held += value.length + 1;
      if (held > limits.maxEventBytes) throw tooLong('an event', limits.maxEventBytes);
      data.push(value);
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
      if (end > limits.maxLineBytes) throw tooLong('a line', limits.maxLineBytes);
      const line = buffer.slice(0, end);
      let rest = end + 1;
      if (buffer[end] === '\r') {
        if (end + 1 < buffer.length) {
          if (buffer[end + 1] === '\n') rest += 1;
        } else pendingCr = true;
      }
      buffer = buffer.slice(rest);
      yield* take(line);
    }
    // The line still open is bounded too, whether or not its end ever comes.
    if (buffer.length > limits.maxLineBytes) throw tooLong('a line', limits.maxLineBytes);
  }
}
