/**
 * The suspender's order of things, on stand-in terminal streams: the terminal is given back before the
 * stop, taken again and redrawn after it; a stop nothing could resume is not tried; a SIGCONT after a
 * stop from outside redraws.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createSuspender, NO_JOB_CONTROL, type Suspender } from '../../../src/tui/shell/suspend';

function terminal() {
  const events: string[] = [];
  const stdout = new PassThrough() as unknown as NodeJS.WriteStream;
  const write = stdout.write.bind(stdout);
  stdout.write = ((chunk: string) => {
    events.push(`write ${JSON.stringify(chunk)}`);
    return write(chunk);
  }) as typeof stdout.write;
  const stdin = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (mode: boolean) => {
      events.push(`raw ${mode}`);
      return stdin;
    },
  }) as unknown as NodeJS.ReadStream;
  return { events, stdin, stdout };
}

let suspender: Suspender | undefined;
afterEach(() => suspender?.dispose());

describe('suspend', () => {
  it('gives the terminal back, stops, then takes it again and redraws', () => {
    const t = terminal();
    suspender = createSuspender({ ...t, resumable: () => true, stop: () => t.events.push('stopped') });
    expect(suspender.suspend(() => t.events.push('redraw'))).toBeNull();
    expect(t.events).toEqual([
      'write "\\u001b[?1049l\\u001b[?25h"',
      'raw false',
      'stopped',
      'raw true',
      'write "\\u001b[?1049h\\u001b[?25l\\u001b[H"',
      'redraw',
    ]);
    // The SIGCONT of that very stop comes after: nothing drawn twice.
    process.emit('SIGCONT', 'SIGCONT');
    expect(t.events.at(-1)).toBe('redraw');
    expect(t.events.filter((e) => e === 'redraw')).toHaveLength(1);
  });

  it('a SIGCONT after a stop from outside (SIGSTOP, then kill -CONT) takes the screen again and redraws', () => {
    const t = terminal();
    let now = 1_000_000;
    suspender = createSuspender({ ...t, resumable: () => true, stop: () => t.events.push('stopped'), now: () => now });
    // Before any Ctrl-Z there is nothing to redraw with: a SIGCONT is left alone.
    process.emit('SIGCONT', 'SIGCONT');
    expect(t.events).toEqual([]);
    suspender.suspend(() => t.events.push('redraw'));
    now += 60_000;
    t.events.length = 0;
    process.emit('SIGCONT', 'SIGCONT');
    expect(t.events).toEqual(['raw true', 'write "\\u001b[?1049h\\u001b[?25l\\u001b[H"', 'redraw']);
  });

  it('does not stop when nothing could resume it, and says so', () => {
    const t = terminal();
    suspender = createSuspender({ ...t, resumable: () => false, stop: () => t.events.push('stopped') });
    expect(suspender.suspend(() => t.events.push('redraw'))).toBe(NO_JOB_CONTROL);
    expect(t.events).toEqual([]);
  });
});
