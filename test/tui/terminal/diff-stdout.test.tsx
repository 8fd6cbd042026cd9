/**
 * The diff writer under real Ink: one terminal gets what the writer passes on, another gets everything
 * Ink wrote, and after every frame the two show the same cells and cursor: through countdown ticks,
 * selection moves, colours, wide characters, a frame of another height, a clipboard sequence written
 * through Ink, and resizes. And the writer wrote a fraction of Ink's bytes.
 *
 * Ink draws nothing of its own under CI (it keeps the last frame for the exit), and chalk draws no
 * colour where its process has no terminal: this file loads Ink with CI unset and colour forced, as the
 * app runs in a terminal.
 */
import { EventEmitter } from 'node:events';
import { useState } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hyperlink } from '../../../src/text/hyperlink';
import { diffingStdout, frameLines } from '../../../src/tui/terminal/diff-stdout';
import { waitFor } from '../../harness/wait';
import { cells, feed, terminal, text } from './xterm-cells';

type Ink = typeof import('ink');
let ink: Ink;
const saved = { CI: process.env.CI, FORCE_COLOR: process.env.FORCE_COLOR };

beforeAll(async () => {
  delete process.env.CI;
  process.env.FORCE_COLOR = '1';
  ink = await import('ink');
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** A terminal's stdout as Ink needs it: a TTY with a size that can change. */
class FakeTty extends EventEmitter {
  readonly isTTY = true;
  chunks: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
  }
  write(chunk: string, done?: () => void): boolean {
    this.chunks.push(chunk);
    done?.();
    return true;
  }
  resize(columns: number, rows: number) {
    this.columns = columns;
    this.rows = rows;
    this.emit('resize');
  }
}

interface Controls {
  set: (patch: Partial<Model>) => void;
  write: (data: string) => void;
}

interface Model {
  countdown: number;
  selected: number;
  status: string;
  extraRow: boolean;
  colour: 'red' | 'green' | undefined;
}

function Screen({ controls }: { controls: Controls }) {
  const [model, setModel] = useState<Model>({
    countdown: 3599,
    selected: 0,
    status: '',
    extraRow: false,
    colour: undefined,
  });
  const { write } = ink.useStdout();
  controls.set = (patch) => setModel((m) => ({ ...m, ...patch }));
  controls.write = write;
  const { Box, Text } = ink;
  const rows = [
    'Alice  Order 1 shipped  09:12',
    'Bob    Your code 482913 09:10',
    'Carol  漢字 newsletter 👋  Nov 21',
    'Dave   Meeting · notes…   08:01',
  ];
  const mm = String(Math.floor(model.countdown / 60)).padStart(2, '0');
  const ss = String(model.countdown % 60).padStart(2, '0');
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold color="cyan">
          quiet-otter@tempmail.test
        </Text>
        <Text color={model.countdown < 60 ? 'red' : undefined}>{`  expires in ${mm}:${ss}`}</Text>
      </Text>
      <Text color="gray">last checked 09:15:02 · every 5 s</Text>
      {rows.map((r, i) => (
        <Text key={r} inverse={i === model.selected} bold={i === 1}>
          {r}
        </Text>
      ))}
      {model.extraRow ? <Text>an extra row</Text> : null}
      <Text color={model.colour}>{model.status}</Text>
      <Text color="gray">j/k move · Enter open · q quit</Text>
    </Box>
  );
}

describe('diff writer under Ink', () => {
  it('every frame shows what Ink drew, for a fraction of the bytes', async () => {
    const tty = new FakeTty(60, 16);
    const screen = diffingStdout(tty as unknown as NodeJS.WriteStream);
    const viaDiff = terminal(60, 16);
    const direct = terminal(60, 16);
    // Everything Ink wrote, as it wrote it: the direct terminal's input.
    let inkBytes = 0;
    const inkWrite = screen.write.bind(screen);
    const raw: string[] = [];
    (screen as { write: unknown }).write = (chunk: string, ...rest: unknown[]) => {
      raw.push(chunk);
      inkBytes += Buffer.byteLength(chunk);
      return (inkWrite as (c: string, ...r: unknown[]) => boolean)(chunk, ...rest);
    };
    const controls = {} as Controls;
    const app = ink.render(<Screen controls={controls} />, {
      stdout: screen,
      patchConsole: false,
      exitOnCtrlC: false,
      maxFps: 1000,
    });

    let outBytes = 0;
    const writesPerStep: number[] = [];
    const settle = async (what: string) => {
      // Each step ends in a frame: wait for Ink's synchronized-output end mark, then compare.
      await waitFor(() => raw.join('').endsWith('\x1b[?2026l'), { message: `the frame after ${what}` });
      // Both taken at once: a frame arriving while the terminals parse goes to both next time.
      writesPerStep.push(tty.chunks.length);
      const passed = tty.chunks.splice(0).join('');
      const written = raw.splice(0).join('');
      outBytes += Buffer.byteLength(passed);
      await feed(viaDiff, passed);
      await feed(direct, written);
      // The cells; not the (hidden) cursor, which waits below the last line a diff changed.
      expect(cells(viaDiff).slice(0, -1), `${what}\nvia the diff:\n${text(viaDiff)}\nwhole:\n${text(direct)}`).toEqual(
        cells(direct).slice(0, -1),
      );
    };
    await settle('the first frame');

    const before = { out: outBytes, ink: inkBytes };
    for (let tick = 0; tick < 30; tick++) {
      controls.set({ countdown: 3598 - tick * 97 });
      await settle(`tick ${tick}`);
    }
    // A tick is the changed digits and the moves to them, inside Ink's synchronized-output marks, in one
    // write to the terminal.
    expect((outBytes - before.out) / 30).toBeLessThan(60);
    expect(writesPerStep.slice(-30)).toEqual(Array(30).fill(1));
    expect(outBytes - before.out).toBeLessThan((inkBytes - before.ink) / 8);
    for (const selected of [1, 2, 3, 2, 0]) {
      controls.set({ selected });
      await settle(`selection on ${selected}`);
    }
    controls.set({ status: 'Copied the code 482913', colour: 'green' });
    await settle('a status line');
    controls.set({ status: 'Offline, retrying in 8 s', colour: 'red' });
    await settle('a red status line');
    controls.set({ status: 'ok', colour: undefined });
    await settle('a shorter one');
    controls.set({ extraRow: true });
    await settle('a row more');
    controls.set({ extraRow: false, countdown: 42 });
    await settle('a row less');
    // What the app writes through Ink (the clipboard's OSC 52): Ink clears, writes it, draws again.
    controls.write('\x1b]52;c;aGVsbG8=\x07');
    await settle('a clipboard sequence');
    controls.set({ countdown: 41 });
    await settle('a tick after it');
    // Narrower: the terminals first (as a real one is resized before the program hears of it), then Ink.
    viaDiff.resize(50, 16);
    direct.resize(50, 16);
    tty.resize(50, 16);
    await settle('a resize');
    controls.set({ countdown: 40 });
    await settle('a tick after the resize');
    viaDiff.resize(70, 18);
    direct.resize(70, 18);
    tty.resize(70, 18);
    controls.set({ countdown: 39 });
    await settle('a tick after the resize');

    controls.set({ countdown: 38 });
    await settle('a tick, diffed again');
    // Parked (Ctrl-Z, the exit): the cursor goes where Ink's own writes left it, below the frame.
    expect(cells(viaDiff).at(-1)).not.toEqual(cells(direct).at(-1));
    screen.park();
    await feed(viaDiff, tty.chunks.splice(0).join(''));
    expect(cells(viaDiff)).toEqual(cells(direct));
    screen.park();
    expect(tty.chunks).toEqual([]);

    app.unmount();
    screen.dispose();
    expect(screen.diffStats.diffed).toBeGreaterThan(35);
  });
});

/** A countdown above a row that is a hyperlink (as the viewer draws a link over SSH). */
function LinkScreen({ controls }: { controls: Controls }) {
  const [model, setModel] = useState<Model>({
    countdown: 3599,
    selected: 0,
    status: '',
    extraRow: false,
    colour: undefined,
  });
  controls.set = (patch) => setModel((m) => ({ ...m, ...patch }));
  const { Box, Text } = ink;
  return (
    <Box flexDirection="column">
      <Text>{`quiet-otter@tempmail.test  expires in ${model.countdown}`}</Text>
      <Text>
        <Text bold color="cyan">
          Link:{' '}
        </Text>
        {hyperlink('https://example.org/confirm?t=a+b', '[1] https://example.org/confirm?t=a+b')}
      </Text>
      <Text color="gray">q quit</Text>
    </Box>
  );
}

describe('diff writer with a hyperlink on screen', () => {
  it('diffs the frames around a hyperlink row, which is written whole when it changes only', async () => {
    const tty = new FakeTty(60, 8);
    const screen = diffingStdout(tty as unknown as NodeJS.WriteStream);
    const viaDiff = terminal(60, 8);
    const direct = terminal(60, 8);
    const raw: string[] = [];
    const inkWrite = screen.write.bind(screen);
    (screen as { write: unknown }).write = (chunk: string, ...rest: unknown[]) => {
      raw.push(chunk);
      return (inkWrite as (c: string, ...r: unknown[]) => boolean)(chunk, ...rest);
    };
    const controls = {} as Controls;
    const app = ink.render(<LinkScreen controls={controls} />, {
      stdout: screen,
      patchConsole: false,
      exitOnCtrlC: false,
      maxFps: 1000,
    });
    const settle = async (what: string) => {
      await waitFor(() => raw.join('').endsWith('\x1b[?2026l'), { message: `the frame after ${what}` });
      const passed = tty.chunks.splice(0).join('');
      await feed(viaDiff, passed);
      await feed(direct, raw.splice(0).join(''));
      expect(cells(viaDiff).slice(0, -1), what).toEqual(cells(direct).slice(0, -1));
      return passed;
    };
    await settle('the first frame');
    for (let tick = 1; tick <= 3; tick++) {
      controls.set({ countdown: 3599 - tick });
      const passed = await settle(`tick ${tick}`);
      // The tick's digits only: the link row, unchanged, is not written again.
      expect(passed).not.toContain('example.org');
    }
    app.unmount();
    screen.dispose();
    expect(screen.diffStats.diffed).toBe(3);
  });
});

describe('frame lines', () => {
  it("reads Ink's frame write: erased lines, then lines ended by a newline", () => {
    expect(frameLines('a\nb\n', null)).toEqual(['a', 'b']);
    expect(frameLines('\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[Ga\x1b[1mb\x1b[22m\n', 3)).toEqual([
      'a\x1b[1mb\x1b[22m',
    ]);
    // Not the number of lines the last frame had, not a frame's ending, not text a diff may place.
    expect(frameLines('\x1b[2K\x1b[Ga\n', 3)).toBeNull();
    expect(frameLines('a', null)).toBeNull();
    expect(frameLines('\x1b]52;c;eA==\x07\n', null)).toBeNull();
    expect(frameLines('a\tb\n', null)).toBeNull();
    // A hyperlink closed on its line is frame text; one left open (it would run on into the next line
    // the diff writes) is not.
    const link = '\x1b]8;id=tm1;https://example.org/\x1b\\[1] link\x1b]8;;\x1b\\';
    expect(frameLines(`a\n${link}\n`, null)).toEqual(['a', link]);
    expect(frameLines('\x1b]8;;https://example.org/\x1b\\open\n', null)).toBeNull();
  });
});
