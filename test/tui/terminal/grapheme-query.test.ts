/**
 * The start-up question about grapheme clustering (src/tui/terminal/grapheme-query.ts), asked in a real
 * pseudo-terminal that plays the terminal: the answer is read whichever way it comes (set, permanently
 * set, reset, unknown to the terminal, no answer at all), keys typed while it travels reach the app in
 * order, and an answer that comes too late is never a key (widgets/key-stdin.ts).
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { IPty } from '@lydell/node-pty';
import { afterEach, describe, expect, it } from 'vitest';
import { GRAPHEME_QUERY, TERMINAL_REPORT } from '../../../src/tui/terminal/grapheme-query';
import { keyByKey } from '../../../src/tui/widgets/key-stdin';
import { waitFor } from '../../harness/wait';

const require = createRequire(import.meta.url);
const pty = require('@lydell/node-pty') as typeof import('@lydell/node-pty');
const QUERY = fileURLToPath(new URL('../../../src/tui/terminal/grapheme-query.ts', import.meta.url));

// The program in the pty: asks, prints the answer, then prints the first keys it reads.
const PROGRAM = `
import { queryGraphemeClustering } from ${JSON.stringify(QUERY)};
const answer = await queryGraphemeClustering(process.stdin, process.stdout, Number(process.argv[1]));
process.stdout.write('\\nANSWER ' + JSON.stringify(answer) + '\\n');
process.stdin.setRawMode(true);
// Read as the app reads (widgets/key-stdin.ts): on 'readable'.
process.stdin.on('readable', () => {
  const d = process.stdin.read();
  if (d !== null) { process.stdout.write('KEYS ' + JSON.stringify(String(d)) + '\\n'); process.exit(0); }
});
`;

let child: IPty | undefined;
afterEach(() => {
  child?.kill();
  child = undefined;
});

/** Runs the program; `reply` answers the question when it is seen. Resolves with what it printed. */
async function ask(
  reply: string | null,
  deadlineMs = 5000,
): Promise<{ answer: unknown; out: () => string; keys: (k: string) => void }> {
  let out = '';
  const spawned = pty.spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', PROGRAM, String(deadlineMs)],
    {
      name: 'xterm-256color',
      cols: 80,
      rows: 24,
      cwd: process.cwd(),
      env: process.env as Record<string, string>,
    },
  );
  child = spawned;
  let asked = false;
  spawned.onData((data) => {
    out += data;
    if (!asked && out.includes(GRAPHEME_QUERY)) {
      asked = true;
      if (reply !== null) spawned.write(reply);
    }
  });
  const line = await waitFor(() => /ANSWER (.*)\r?\n/.exec(out)?.[1], {
    timeoutMs: 20_000,
    message: `the answer; the program wrote ${JSON.stringify(out)}`,
  });
  return { answer: JSON.parse(line), out: () => out, keys: (k) => spawned.write(k) };
}

describe('the grapheme clustering question', () => {
  it('reads the mode set or permanently set as clustering, and a terminal without the mode as not', async () => {
    expect((await ask('\x1b[?2027;1$y\x1b[?62;22c')).answer).toEqual({ clustering: true, state: 1, answered: true });
    expect((await ask('\x1b[?2027;3$y\x1b[?1;2c')).answer).toEqual({ clustering: true, state: 3, answered: true });
    expect((await ask('\x1b[?2027;2$y\x1b[?1;2c')).answer).toEqual({ clustering: false, state: 2, answered: true });
    expect((await ask('\x1b[?2027;4$y\x1b[?1;2c')).answer).toEqual({ clustering: false, state: 4, answered: true });
    // tmux 3.3, Terminal.app: no word on the mode, only the device attributes.
    expect((await ask('\x1b[?1;2c')).answer).toEqual({ clustering: false, state: null, answered: true });
  });

  it('starts without clustering when no answer comes in time', async () => {
    expect((await ask(null, 200)).answer).toEqual({ clustering: false, state: null, answered: false });
  });

  it('gives keys typed while the answer travels back to the app, in order', async () => {
    const run = await ask('jk\x1b[A\x1b[?2027;1$y\x1b[?62c');
    expect(run.answer).toEqual({ clustering: true, state: 1, answered: true });
    await waitFor(() => run.out().includes('KEYS'), { timeoutMs: 10_000, message: 'the keys' });
    expect(run.out()).toContain(`KEYS ${JSON.stringify('jk\x1b[A')}`);
  });

  it('drops an answer that comes too late from the keys: its final y would confirm a question', async () => {
    expect(TERMINAL_REPORT.test('\x1b[?2027;1$y')).toBe(true);
    expect(TERMINAL_REPORT.test('\x1b[?62;22c')).toBe(true);
    expect(TERMINAL_REPORT.test('\x1b[A')).toBe(false);
    const source = Object.assign(new EventEmitter(), {
      chunks: ['j\x1b[?2027;1$yy\x1b[?1;2c', 'k'] as string[],
      isTTY: true,
      read(): string | null {
        return this.chunks.shift() ?? null;
      },
      setEncoding: () => undefined,
      setRawMode: () => undefined,
      ref: () => undefined,
      unref: () => undefined,
    });
    const keys = keyByKey(source as unknown as NodeJS.ReadStream);
    const got: string[] = [];
    keys.on('readable', () => {
      for (let key = keys.read() as string | null; key !== null; key = keys.read() as string | null) got.push(key);
    });
    source.emit('readable');
    await waitFor(() => got.length >= 3, { timeoutMs: 5000, message: 'the keys' });
    expect(got).toEqual(['j', 'y', 'k']);
  });
});
