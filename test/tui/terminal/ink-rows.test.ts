/**
 * The row-remembering frame assembly gives exactly Ink's frames: Ink's own Output (ink/build/output.js)
 * and the same Output with ink-rows.ts's get() are fed the same operations (texts with styles, wide
 * characters and emoji, several lines, clips, transforms, texts off the grid, overlapping writes),
 * frame after frame with most rows unchanged, and must give the same string every time. And the build
 * puts it in place.
 */
import { styledCharsFromTokens, styledCharsToString, tokenize } from '@alcalzone/ansi-tokenize';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import sliceAnsi from 'slice-ansi';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { INK_OUTPUT, INK_RENDER_NODE, inkOutputWithRowCache, inkRenderWithWidthMemo } from '../../../scripts/build-config.mjs';
import { recentMemo, rowCachedGet, type InkOutput, type InkOutputDeps } from '../../../src/tui/terminal/ink-rows';

const require = createRequire(import.meta.url);
const outputPath = require.resolve('ink').replace(/index\.js$/, 'output.js');
const renderNodePath = require.resolve('ink').replace(/index\.js$/, 'render-node-to-output.js');

interface InkOutputClass {
  new (options: { width: number; height: number }): {
    write(x: number, y: number, text: string, options: { transformers: ((line: string, index: number) => string)[] }): void;
    clip(clip: { x1?: number; x2?: number; y1?: number; y2?: number }): void;
    unclip(): void;
    get(): { output: string; height: number };
  };
}

const deps = { tokenize, styledCharsFromTokens, styledCharsToString, sliceAnsi, stringWidth } as unknown as InkOutputDeps;

describe('ink rows', () => {
  it('gives the frames Ink gives, frame after frame', async () => {
    const { default: Output } = (await import(outputPath)) as { default: InkOutputClass };
    const get = rowCachedGet(deps);
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const int = (n: number) => Math.floor(random() * n);
    const pick = <T>(xs: readonly T[]) => xs[int(xs.length)]!;
    const words = ['a', 'bc', 'quiet-otter', ' ', '·', '…', 'é', '漢字', '👩‍💻', 'x\u0301', '12:34', 'Order 10482 shipped'];
    const styles = [(s: string) => s, (s: string) => `\x1b[1m${s}\x1b[22m`, (s: string) => `\x1b[36m${s}\x1b[39m`, (s: string) => `\x1b[7m${s}\x1b[27m`];
    const text = () =>
      Array.from({ length: 1 + int(3) }, () => Array.from({ length: 1 + int(4) }, () => pick(styles)(pick(words))).join(' ')).join('\n');
    const upper = (line: string) => line.toUpperCase();
    const numbered = (line: string, index: number) => `${index}:${line}`;

    type Op = { kind: 'write'; x: number; y: number; text: string; transformers: ((l: string, i: number) => string)[] } | { kind: 'clip'; clip: object } | { kind: 'unclip' };
    const operations = (): Op[] => {
      const ops: Op[] = [];
      let open = 0;
      for (let i = 0; i < 12; i++) {
        const r = random();
        if (r < 0.12) {
          ops.push({ kind: 'clip', clip: random() < 0.5 ? { x1: int(10), x2: 10 + int(30), y1: int(5), y2: 5 + int(10) } : { x1: int(10), x2: 20 + int(20) } });
          open++;
        } else if (r < 0.2 && open > 0) {
          ops.push({ kind: 'unclip' });
          open--;
        } else {
          const transformers = random() < 0.1 ? [upper] : random() < 0.1 ? [numbered] : [];
          ops.push({ kind: 'write', x: int(45) - 3, y: int(16) - 2, text: text(), transformers });
        }
      }
      return ops;
    };

    for (const [width, height] of [
      [40, 12],
      [60, 14],
    ] as const) {
      let ops = operations();
      for (let frame = 0; frame < 150; frame++) {
        // Most frames change a little (one write redone or moved); some change everything, as a new screen does.
        if (frame % 10 === 0) ops = operations();
        else {
          const i = int(ops.length);
          const op = ops[i];
          if (op?.kind === 'write') {
            const r = random();
            ops[i] = r < 0.4 ? { ...op, text: text() } : r < 0.7 ? { ...op, x: op.x + 1 - int(3) } : { ...op, y: op.y + 1 - int(3) };
          }
        }
        const ink = new Output({ width, height });
        for (const op of ops) {
          if (op.kind === 'write') ink.write(op.x, op.y, op.text, { transformers: op.transformers });
          else if (op.kind === 'clip') ink.clip(op.clip);
          else ink.unclip();
        }
        expect(get.call(ink as unknown as InkOutput), `frame ${frame} at ${width}x${height}`).toEqual(ink.get());
      }
    }
  });

  it('remembers what was used lately and forgets the rest, however many texts go by', () => {
    const made: string[] = [];
    const memo = recentMemo((key) => {
      made.push(key);
      return { key };
    }, 4);
    // A countdown: a new text every second, beside a line shown all along.
    for (let second = 0; second < 100; second++) {
      expect(memo('address line').key).toBe('address line');
      memo(`expires in ${second}`);
    }
    // The line used all along was made once; every second's text once too.
    expect(made.filter((k) => k === 'address line')).toHaveLength(1);
    expect(made).toHaveLength(101);
    // A text used lately is still there; one from long ago is made again (it was let go).
    memo('expires in 99');
    memo('expires in 0');
    expect(made.slice(101)).toEqual(['expires in 0']);
  });

  it('keeps frames right when its memo lets go of texts (more texts than it holds)', async () => {
    const { default: Output } = (await import(outputPath)) as { default: InkOutputClass };
    const get = rowCachedGet(deps);
    for (let frame = 0; frame < 1500; frame++) {
      const writes: [number, number, string][] = [
        [0, 0, `\x1b[1mquiet-otter@example.test\x1b[22m  expires in ${frame}`],
        [2, 1, `\x1b[7m Order ${frame % 7} shipped \x1b[27m`],
        [0, 2, `last checked ${frame % 600} · every 5 s`],
      ];
      const ink = new Output({ width: 60, height: 3 });
      for (const [x, y, text] of writes) ink.write(x, y, text, { transformers: [] });
      expect(get.call(ink as unknown as InkOutput), `frame ${frame}`).toEqual(ink.get());
    }
  });

  it("is put in place of Ink's get() by the build", () => {
    expect(INK_OUTPUT.test(outputPath)).toBe(true);
    const source = readFileSync(outputPath, 'utf8');
    const patched = inkOutputWithRowCache(source) as string;
    expect(patched).not.toBe(source);
    expect(patched).toContain('Output.prototype.get = __rowCachedGet(');
  });

  it("has Ink's text widths remembered by the build, Ink's own widest-line behind the memo", () => {
    expect(INK_RENDER_NODE.test(renderNodePath)).toBe(true);
    const source = readFileSync(renderNodePath, 'utf8');
    const patched = inkRenderWithWidthMemo(source) as string;
    expect(patched).not.toContain("import widestLine from 'widest-line';");
    expect(patched).toContain("import __widestLine from 'widest-line';");
    expect(patched).toContain('const widestLine = __recentMemo((text) => __widestLine(text));');
    // Everything else is Ink's, unchanged.
    expect(patched.split('\n').slice(3).join('\n')).toBe(source.split('\n').slice(1).join('\n'));
  });
});
