/**
 * The service's log: events with a level, a name and a few fields (client address, session hash, message
 * id, TLS, reason), written as text lines (the default, for people and journald) or as one JSON object a
 * line (`--log-format json`, for log shippers). A small writer of our own rather than pino: what we need
 * beyond a line writer is the repeat folding below and terminal-safe text, neither of which pino does, and
 * `serve` starts without loading a logging framework.
 *
 * Repeats: a warning or an error (and any event marked `fold`) is written at most once a second per kind
 * (its name and reason); the repeats of that second are counted and written as one line when the second
 * is over (`repeats=N`). A database outage under load used to write one line per failed request: ~15,000
 * lines for 8 seconds. Everything else (a stored message, an answered request) is one line each: those
 * are the access log, and each is bounded by the per-client limits.
 */
import { safeLine } from '../../text/safe-text';

export type LogLevel = 'info' | 'warn' | 'error';

/** The structured part of an event. Undefined fields are left out. */
export interface LogFields {
  /** The client's address (SMTP peer, or the HTTP client as the proxy named it). */
  client?: string;
  /** The start of sha256(token): names a session in the log without the token. */
  session?: string;
  /** The Message-ID header of the message concerned. */
  messageId?: string;
  /** Whether the SMTP connection is encrypted (STARTTLS). */
  tls?: boolean;
  /** A short reason: a refusal's kind, a failure's cause. */
  reason?: string;
  /** Anything else worth a field (a route, a status, a count). */
  [key: string]: string | number | boolean | undefined;
}

export interface LogEvent {
  level: LogLevel;
  /** A dotted name, e.g. "smtp.stored", "storage.failing". */
  event: string;
  /** The sentence a person reads. */
  text: string;
  fields?: LogFields;
  /**
   * Fields for JSON only: what the sentence of a text line says already (a request's method, route and
   * duration), kept as fields where a collector reads them and out of the text line, which reads as before.
   */
  jsonFields?: LogFields;
  /** Fold repeats (default: for warnings and errors). */
  fold?: boolean;
  /** What makes two events "the same" for folding, beside the name (default: the reason). */
  foldKey?: string;
  /**
   * It ends a condition (the storage is back, there is room again): the repeats folded so far are written
   * first, so no line about the trouble comes after the line that says it is over.
   */
  ends?: boolean;
}

/**
 * A log. Called as a function it takes a plain line (the modules that only ever wrote lines: event
 * "log", level info), so it fits wherever a `(line: string) => void` is expected.
 */
export interface Logger {
  (line: string): void;
  event(e: LogEvent): void;
  /** Writes the pending repeat counts now (at shutdown). */
  flush(): void;
}

export interface LoggerOptions {
  format: 'text' | 'json';
  /**
   * Where a finished line goes. Text: the sentence and its fields, without time (serve adds it, a test
   * keeps lines as they are); JSON: the whole object, time included.
   */
  write: (line: string) => void;
  /** Applied to every string before it is written (serve removes the database password here). */
  scrub?: (text: string) => string;
  clock?: () => number;
  /** Folding window, ms (default 1000). */
  foldMs?: number;
}

const MAX_TEXT = 2000;
const MAX_FIELD = 300;
/** Kinds of events being folded at once; past it a new kind is written unfolded (never unbounded). */
const MAX_FOLDS = 1000;

/** snake_case names of the fields in JSON and in the text suffix. */
const FIELD_NAMES: Record<string, string> = { messageId: 'message_id' };

interface Fold {
  until: number;
  repeats: number;
  last?: LogEvent;
}

/** A Logger writing `options.format`. */
export function createLogger(options: LoggerOptions): Logger {
  const clock = options.clock ?? Date.now;
  const foldMs = options.foldMs ?? 1000;
  const scrub = options.scrub ?? ((s: string) => s);
  const folds = new Map<string, Fold>();
  let timer: NodeJS.Timeout | undefined;

  const clean = (value: string, max: number) => safeLine(scrub(value), max);

  function render(e: LogEvent, repeats: number): string {
    const fields: [string, string | number | boolean][] = [];
    const all = options.format === 'json' ? { ...e.fields, ...e.jsonFields } : (e.fields ?? {});
    for (const [key, value] of Object.entries(all)) {
      if (value === undefined) continue;
      fields.push([FIELD_NAMES[key] ?? key, typeof value === 'string' ? clean(value, MAX_FIELD) : value]);
    }
    if (repeats > 0) fields.push(['repeats', repeats]);
    const text = clean(e.text, MAX_TEXT);
    if (options.format === 'json') {
      const object: Record<string, unknown> = {
        time: new Date(clock()).toISOString(),
        level: e.level,
        event: e.event,
        msg: text,
      };
      for (const [key, value] of fields) object[key] = value;
      return JSON.stringify(object);
    }
    const suffix = fields
      .map(([key, value]) => `${key}=${typeof value === 'boolean' ? (value ? 'yes' : 'no') : textValue(value)}`)
      .join(' ');
    // The level is JSON's: a text line reads as it always did, its fields after a bar.
    return `${text}${suffix ? ` | ${suffix}` : ''}`;
  }

  function emit(e: LogEvent, repeats = 0): void {
    try {
      options.write(render(e, repeats));
    } catch {
      // A log that cannot be written (stderr closed) must not take the service down.
    }
  }

  /** Writes the counts of the windows that are over; keeps the timer while any window is open. */
  function sweep(): void {
    timer = undefined;
    const now = clock();
    for (const [key, fold] of folds) {
      if (fold.until > now) continue;
      if (fold.repeats > 0 && fold.last) {
        // The repeats of the second just over, as one line; a new window starts so a storm stays at one a second.
        emit(fold.last, fold.repeats);
        folds.set(key, { until: now + foldMs, repeats: 0 });
      } else folds.delete(key);
    }
    schedule();
  }

  function schedule(): void {
    if (timer || folds.size === 0) return;
    let next = Infinity;
    for (const fold of folds.values()) next = Math.min(next, fold.until);
    timer = setTimeout(sweep, Math.max(10, next - clock()));
    timer.unref();
  }

  const logger = ((line: string) => logger.event({ level: 'info', event: 'log', text: line, fold: false })) as Logger;
  logger.event = (e) => {
    if (e.ends) logger.flush();
    const fold = e.fold ?? e.level !== 'info';
    if (!fold) return emit(e);
    const key = `${e.event}\n${e.foldKey ?? e.fields?.reason ?? ''}`;
    const now = clock();
    const open = folds.get(key);
    if (open && open.until > now) {
      open.repeats++;
      open.last = e;
      return;
    }
    if (open && open.repeats > 0 && open.last) emit(open.last, open.repeats);
    if (folds.size >= MAX_FOLDS && !open) return emit(e);
    folds.set(key, { until: now + foldMs, repeats: 0 });
    emit(e);
    schedule();
  };
  logger.flush = () => {
    for (const [key, fold] of folds) {
      if (fold.repeats > 0 && fold.last) emit(fold.last, fold.repeats);
      folds.delete(key);
    }
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  return logger;
}

/**
 * A field's value in a text line: as it is, or quoted (JSON string rules) when it holds a space, a bar,
 * an `=` or a quote. A sender's Message-ID of `<a@b> | client=10.9.9.9 tls=yes` wrote fields of its own
 * into the line, which a reader (or a grep for client=) took for the service's.
 */
function textValue(value: string | number): string | number {
  return typeof value === 'string' && /[\s|="\\]/.test(value) ? JSON.stringify(value) : value;
}

/**
 * `log` as a Logger: itself when it is one (it scrubs what it must itself), else a text Logger writing
 * its lines to it, each through `scrub` first.
 */
export function asLogger(log: ((line: string) => void) | Logger | undefined, scrub?: (text: string) => string): Logger {
  if (log && typeof (log as Logger).event === 'function') return log as Logger;
  return createLogger({ format: 'text', write: log ?? (() => undefined), scrub });
}

/** The session field of a token: the first 16 hex digits of its sha256 (never the token itself). */
export function sessionField(tokenHash: string | undefined): string | undefined {
  return tokenHash?.slice(0, 16);
}

/**
 * Writes `e` to `log`: a Logger gets the event (its level, name and fields), a plain line writer (a part
 * used on its own, a test) the sentence only. For the parts that take either.
 */
export function logEvent(log: ((line: string) => void) | Logger, e: LogEvent): void {
  if (typeof (log as Logger).event === 'function') (log as Logger).event(e);
  else log(e.text);
}
