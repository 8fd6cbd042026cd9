/**
 * The service's log writer on its own (the served behaviour is in metrics.test.ts and the Postgres
 * outage test): folding of repeated warnings, one line per info event, JSON and text shapes, the scrub
 * and the terminal-safe boundary. Its clock is injected; the window ends are waited for with flush().
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/server/observe/log';

function logger(format: 'text' | 'json' = 'text') {
  let now = 1_800_000_000_000;
  const lines: string[] = [];
  const log = createLogger({
    format,
    write: (l) => lines.push(l),
    clock: () => now,
    scrub: (s) => s.replaceAll('hunter2', '***'),
  });
  return {
    log,
    lines,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('the log', () => {
  it('folds a warning repeated within a second into one line, and writes the count of the repeats', () => {
    const { log, lines, advance } = logger();
    for (let i = 0; i < 500; i++)
      log.event({
        level: 'warn',
        event: 'smtp.deliver_failed',
        text: `failed ${i}`,
        fields: { reason: 'storage_unavailable' },
      });
    expect(lines).toEqual(['failed 0 | reason=storage_unavailable']);
    advance(1000);
    // The next one after the second: the count of the folded ones first (the last of them), then it.
    log.event({
      level: 'warn',
      event: 'smtp.deliver_failed',
      text: 'failed again',
      fields: { reason: 'storage_unavailable' },
    });
    expect(lines).toEqual([
      'failed 0 | reason=storage_unavailable',
      'failed 499 | reason=storage_unavailable repeats=499',
      'failed again | reason=storage_unavailable',
    ]);
  });

  it('folds by event and reason: another reason, or an info event, is its own line', () => {
    const { log, lines } = logger();
    log.event({ level: 'warn', event: 'x', text: 'a', fields: { reason: 'one' } });
    log.event({ level: 'warn', event: 'x', text: 'b', fields: { reason: 'two' } });
    log.event({ level: 'warn', event: 'x', text: 'c', fields: { reason: 'one' } });
    for (let i = 0; i < 3; i++) log.event({ level: 'info', event: 'smtp.stored', text: `stored ${i}` });
    expect(lines).toEqual(['a | reason=one', 'b | reason=two', 'stored 0', 'stored 1', 'stored 2']);
    log.flush();
    expect(lines.at(-1)).toBe('c | reason=one repeats=1');
  });

  it('writes JSON objects with time, level, event, msg and the fields; text lines with the fields after a bar', () => {
    const json = logger('json');
    json.log.event({
      level: 'info',
      event: 'smtp.stored',
      text: 'smtp stored 10 bytes',
      fields: { client: '192.0.2.1', tls: true, messageId: '<a@b>', session: undefined },
    });
    json.log('a plain line');
    expect(json.lines.map((l) => JSON.parse(l))).toEqual([
      {
        time: '2027-01-15T08:00:00.000Z',
        level: 'info',
        event: 'smtp.stored',
        msg: 'smtp stored 10 bytes',
        client: '192.0.2.1',
        tls: true,
        message_id: '<a@b>',
      },
      { time: '2027-01-15T08:00:00.000Z', level: 'info', event: 'log', msg: 'a plain line' },
    ]);
    const text = logger('text');
    text.log.event({
      level: 'info',
      event: 'smtp.stored',
      text: 'smtp stored 10 bytes',
      fields: { client: '192.0.2.1', tls: false },
    });
    expect(text.lines).toEqual(['smtp stored 10 bytes | client=192.0.2.1 tls=no']);
  });

  it('writes the repeats folded so far before an event that ends the trouble, never after it', () => {
    const { log, lines } = logger();
    log.event({ level: 'error', event: 'storage.failing', text: 'failing 0', fields: { reason: 'EIO' }, foldKey: '' });
    log.event({ level: 'error', event: 'storage.failing', text: 'failing 1', fields: { reason: 'EIO' }, foldKey: '' });
    log.event({ level: 'warn', event: 'http.request', text: 'http 503', fields: { reason: 'storage_unavailable' } });
    log.event({
      level: 'warn',
      event: 'http.request',
      text: 'http 503 again',
      fields: { reason: 'storage_unavailable' },
    });
    log.event({ level: 'info', event: 'storage.back', text: 'storage is back', ends: true });
    expect(lines).toEqual([
      'failing 0 | reason=EIO',
      'http 503 | reason=storage_unavailable',
      'failing 1 | reason=EIO repeats=1',
      'http 503 again | reason=storage_unavailable repeats=1',
      'storage is back',
    ]);
    log.flush();
    expect(lines.at(-1)).toBe('storage is back');
  });

  it('scrubs secrets and makes every string terminal-safe, in the text and in each field', () => {
    for (const format of ['text', 'json'] as const) {
      const { log, lines } = logger(format);
      log.event({
        level: 'error',
        event: 'storage.failing',
        text: 'password hunter2 \u001b[31mred\u202e',
        fields: { reason: 'hunter2\u0007bell', messageId: '<\u009b2J@x>' },
      });
      expect(lines.join('')).not.toMatch(/hunter2|\u001b|\u202e|\u0007|\u009b/);
      expect(lines.join('')).toContain('***');
    }
  });
});
