/**
 * One measure everywhere: Ink and its helpers (widest-line, wrap-ansi, slice-ansi, cli-truncate) import
 * `string-width`, which the tests alias to src/text/terminal-width.ts as the build does; and textWidth and
 * the per-cluster widths every cut and wrap adds up equal that measure, cluster by cluster, on random text
 * from every script and emoji family we know to be hard (including the code-point-by-code-point fast
 * path), cut where Intl.Segmenter cuts.
 */
import cliTruncate from 'cli-truncate';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import React from 'react';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import widestLine from 'widest-line';
import wrapAnsi from 'wrap-ansi';
import { clusterStops, textWidth } from '../../src/text/text-width';
import terminalWidth, { clusterWidth } from '../../src/text/terminal-width';

const ALPHABET = [
  ...'abc XYZ 09.,-_',
  ...'日本語中文한국어カタカナｱｲｳＡＢＣ𠀋',
  ...'ÜñéПриветΑλφα─│┌',
  '\u0301',
  '\u0308',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u00ad',
  '\ufe0f',
  '\ufe0e',
  '\u20e3',
  '\u3164',
  '\u115f',
  '😀',
  '👍',
  '🏽',
  '👨',
  '👩',
  '👧',
  '❤',
  '♀',
  '©',
  '#',
  '1',
  '🇩',
  '🇪',
  '\u1100',
  '\u1161',
  '\u11a8',
  '가',
  '\u0915',
  '\u094d',
  '\u0937',
  '\u093f',
  '\u0d4e',
  '\u0e01',
  '\u0e31',
  '\u0627',
  '\u064b',
  '\u0600',
  '\t',
  '\r',
  '\n',
  // Letters that join without being marks: halfwidth sound marks, Thai and Lao AM.
  'ﾞ',
  'ﾟ',
  '\u0e33',
  '\u0eb3',
];

const SEGMENTER = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

// A fixed seed: every run checks the same strings, and a failure names one.
function random(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe('one measure for the app and Ink', () => {
  it('gives Ink and its helpers our measure for string-width', () => {
    expect(stringWidth).toBe(terminalWidth);
    expect(widestLine('ab\n👍🏽x')).toBe(5);
    const wrapped = wrapAnsi('👍🏽👍🏽👍🏽 ทำทำทำ', 8, { hard: true });
    for (const line of wrapped.split('\n')) expect(terminalWidth(line), wrapped).toBeLessThanOrEqual(8);
    const cut = cliTruncate('x👍🏽👍🏽👍🏽', 7);
    expect(terminalWidth(cut), cut).toBeLessThanOrEqual(7);
  });

  it('has Ink lay out a bordered box with skin tones and Thai no wider than the terminal', () => {
    const { lastFrame, unmount } = render(
      React.createElement(
        Box,
        { width: 20, borderStyle: 'single' },
        React.createElement(Text, { wrap: 'truncate' }, `👍🏽👍🏽${'ทำ'.repeat(20)}`),
      ),
    );
    const rows = lastFrame()!.split('\n');
    unmount();
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(terminalWidth(row), row).toBe(20);
  });

  it('on 20,000 random strings, whole and cluster by cluster, cut where Intl.Segmenter cuts', () => {
    const next = random(42);
    for (let n = 0; n < 20_000; n++) {
      const length = 1 + Math.floor(next() * 12);
      let s = '';
      for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
      const segments = [...SEGMENTER.segment(s)];
      const want = segments.reduce((sum, g) => sum + clusterWidth(g.segment), 0);
      expect(terminalWidth(s), JSON.stringify(s)).toBe(want);
      expect(textWidth(s), JSON.stringify(s)).toBe(want);
      const stops = clusterStops(s);
      expect(
        stops.widths.reduce((a, b) => a + b, 0),
        JSON.stringify(s),
      ).toBe(want);
      expect(stops.starts, JSON.stringify(s)).toEqual(segments.map((g) => g.index));
    }
  });

  it('on long single-script runs (the fast path that skips segmenting)', () => {
    for (const s of [
      '日本語のテキスト'.repeat(500),
      'Привет мир '.repeat(500),
      'ｱｲｳｴｵ'.repeat(300),
      '─│┌┐'.repeat(400),
    ]) {
      const want = [...SEGMENTER.segment(s)].reduce((sum, g) => sum + clusterWidth(g.segment), 0);
      expect(textWidth(s)).toBe(want);
    }
  });

  it('takes string-width options: escape sequences removed or counted, ambiguous characters narrow or wide', () => {
    expect(terminalWidth('\x1b[31m👍🏽\x1b[39m')).toBe(4);
    expect(terminalWidth('\x1b[31m', { countAnsiEscapeCodes: true })).toBe(4);
    expect(terminalWidth('─…')).toBe(2);
    expect(terminalWidth('─…', { ambiguousIsNarrow: false })).toBe(4);
  });
});
