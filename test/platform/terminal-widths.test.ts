/**
 * No terminal draws text wider than the app measures it (src/text/terminal-width.ts, docs/architecture.md
 * "Cell widths"): each sample (Thai, Devanagari, Tamil, Arabic with marks, Bengali and Persian joiners,
 * emoji with skin tones, ZWJ, VS16, keycaps, flags) is printed in a real tmux and in xterm.js with each
 * of its width models (Unicode 6 by default, Unicode 11 as xterm and VTE measure, grapheme clusters as
 * Ghostty and WezTerm do), and the cursor's advance is read: it is never more than textWidth.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Terminal as XTerm } from '@xterm/headless';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/text/text-width';

const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');
const { Unicode11Addon } = require('@xterm/addon-unicode11') as typeof import('@xterm/addon-unicode11');
const { UnicodeGraphemesAddon } =
  require('@xterm/addon-unicode-graphemes') as typeof import('@xterm/addon-unicode-graphemes');

/** Text of mail in many scripts, and the emoji sequences terminals disagree on. */
const SAMPLES = [
  'ทำ',
  'กำลัง',
  'ทำ'.repeat(40),
  'ภาษาไทยน้ำ',
  'क्ष',
  'हिन्दी',
  'नमस्ते दुनिया',
  'क्‍ष',
  'आपका सत्यापन कोड',
  'தமிழ்',
  'கொ',
  'ஸ்ரீ',
  'مَرْحَبًا',
  'اَلْعَرَبِيَّةُ',
  '؀١٢',
  'এ‌ই',
  'می‌خواهم',
  'മല്‍',
  '👍🏽',
  '👍🏿x',
  '👩🏽‍💻',
  '👨‍👩‍👧',
  '👨‍👩‍👧‍👦',
  '🧑‍🌾',
  '⛹🏻‍♂️',
  '🏳️‍🌈',
  '🏴‍☠️',
  '❤️',
  '♀️',
  '1️⃣',
  '#️⃣',
  '🇫🇷',
  '🇯🇵🇩🇪',
  '🇫',
  '🏽',
  'é',
  'e\u0301',
  '\u0301a',
  '日本語',
  'ｶﾞ',
  '\u1100\u1161\u11a8',
  '한국어',
];

describe('xterm.js, with each of its width models', () => {
  const models: Record<string, (t: XTerm) => void> = {
    'Unicode 6 (its default)': () => undefined,
    'Unicode 11 (as xterm and VTE)': (t) => {
      t.loadAddon(new Unicode11Addon());
      t.unicode.activeVersion = '11';
    },
    'grapheme clusters (as Ghostty and WezTerm)': (t) => t.loadAddon(new UnicodeGraphemesAddon()),
  };
  for (const [name, setUp] of Object.entries(models)) {
    it(`draws no sample wider than the app measures it: ${name}`, async () => {
      const term = new Terminal({ cols: 200, rows: 4, allowProposedApi: true });
      setUp(term);
      const wider: string[] = [];
      for (const sample of SAMPLES) {
        await new Promise<void>((resolve) => term.write(`\x1b[H\x1b[2J${sample}`, resolve));
        const drawn = term.buffer.active.cursorX;
        if (drawn > textWidth(sample))
          wider.push(`${JSON.stringify(sample)}: drawn ${drawn}, measured ${textWidth(sample)}`);
      }
      term.dispose();
      expect(wider).toEqual([]);
    });
  }
});

describe('tmux (a real server on a private socket)', () => {
  let dir: string;
  const TMUX_BIN = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();
  // tmux measures with the C library's wcwidth, in a UTF-8 locale.
  const env = { ...process.env, LC_ALL: 'C.UTF-8' };
  const tmux = (...args: string[]) =>
    execFileSync(TMUX_BIN, ['-S', join(dir, 'sock'), ...args], { encoding: 'utf8', env });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tempmail-widths-'));
    tmux('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '5', '-s', 'w', 'sleep 600');
  });
  afterAll(() => {
    tmux('kill-server');
    rmSync(dir, { recursive: true, force: true });
  });

  it('draws no sample wider than the app measures it', async () => {
    const wider: string[] = [];
    for (const [i, sample] of SAMPLES.entries()) {
      const file = join(dir, `s${i}`);
      writeFileSync(file, sample);
      // The pane prints the sample and signals; the cursor then stands after it until the next sample.
      tmux(
        'respawn-pane',
        '-k',
        '-t',
        'w',
        `cat ${file}; ${TMUX_BIN} -S ${join(dir, 'sock')} wait-for -S printed; sleep 600`,
      );
      execFileSync(TMUX_BIN, ['-S', join(dir, 'sock'), 'wait-for', 'printed'], { env, timeout: 10_000 });
      const [x, y] = tmux('display-message', '-p', '-t', 'w', '#{cursor_x} #{cursor_y}').trim().split(' ').map(Number);
      const drawn = x! + y! * 200;
      if (drawn > textWidth(sample))
        wider.push(`${JSON.stringify(sample)}: drawn ${drawn}, measured ${textWidth(sample)}`);
    }
    expect(wider).toEqual([]);
  });
});
