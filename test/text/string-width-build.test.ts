/**
 * The shipped string-width (scripts/build-config.mjs builds its RGI emoji regex on the first cluster
 * that could be an emoji, not at load) measures exactly as the package does: its pre-test lets every
 * RGI emoji through, over every code point alone and every code point before each joining mark, and the
 * built module gives the package's width on every code point of the planes with emoji and on random
 * hard text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { MAY_BE_RGI_EMOJI, STRING_WIDTH, stringWidthLazyEmoji, stringWidthPlugin } from '../../scripts/build-config.mjs';

// The regex string-width runs (built with new RegExp: TypeScript's target predates the v flag).
const RGI = new RegExp(String.raw`^\p{RGI_Emoji}$`, 'v');
const mayBe = new RegExp(MAY_BE_RGI_EMOJI as string, 'su');

/** Every code point but the surrogates, up to `last`. */
function* codePoints(last = 0x10ffff): Generator<string> {
  for (let cp = 0; cp <= last; cp++) if (cp < 0xd800 || cp > 0xdfff) yield String.fromCodePoint(cp);
}

const ALPHABET = [
  ...'abc XYZ 09.,-_#*…·─│',
  ...'日本語한국어ｱｲｳＡ𠀋ÜñéПр',
  '\u0301', '\u200b', '\u200d', '\u00ad', '\ufe0f', '\ufe0e', '\u20e3', '\u3164', '\u115f', '\u1161', '\u11a8',
  '😀', '👍', '🏽', '👨', '👩', '👧', '❤', '©', '⌚', '↔', '🏴', '\u{e0067}', '\u{e0062}', '\u{e007f}', '🇩', '🇪',
];

describe('the shipped string-width', () => {
  let dir: string;
  let shipped: (s: string) => number;
  beforeAll(async () => {
    const out = await build({ entryPoints: [STRING_WIDTH as string], bundle: true, format: 'esm', platform: 'node', write: false, plugins: [stringWidthPlugin], logLevel: 'silent' });
    const code = out.outputFiles[0]!.text;
    expect(code).not.toMatch(/const \w+ = \/\^\\p\{RGI_Emoji\}\$\/v/); // the plugin did apply
    dir = mkdtempSync(join(tmpdir(), 'string-width-build-'));
    writeFileSync(join(dir, 'string-width.mjs'), code);
    shipped = ((await import(pathToFileURL(join(dir, 'string-width.mjs')).href)) as { default: (s: string) => number }).default;
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is changed by the build (and string-width is still the version it was written for)', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(STRING_WIDTH as string, 'utf8');
    expect(stringWidthLazyEmoji(source)).not.toBe(source);
  });

  it('lets every RGI emoji through its pre-test: each code point alone', () => {
    let emoji = 0;
    for (const s of codePoints()) {
      if (!RGI.test(s)) continue;
      emoji++;
      if (!mayBe.test(s)) expect.fail(`U+${s.codePointAt(0)!.toString(16)} is an RGI emoji the pre-test turns away`);
    }
    expect(emoji).toBeGreaterThan(1000);
  });

  it('lets every RGI emoji through its pre-test: each code point before a joining mark', () => {
    // Emoji live below U+20000; what follows an emoji's first code point in a sequence is one of these.
    const joiners = ['\ufe0f', '\u20e3', '\u200d', '\u{1f3fb}', '\u{1f3ff}', '\u{1f1e6}', '\u{1f1ff}', '\u{e0067}'];
    let emoji = 0;
    for (const first of codePoints(0x1ffff)) {
      for (const j of joiners) {
        const s = first + j;
        if (!RGI.test(s)) continue;
        emoji++;
        if (!mayBe.test(s)) expect.fail(`${JSON.stringify(s)} is an RGI emoji the pre-test turns away`);
      }
    }
    expect(emoji).toBeGreaterThan(400);
  }, 60_000);

  it('measures every code point below U+20000 (where the emoji are) as the package does', () => {
    for (const s of codePoints(0x1ffff)) if (shipped(s) !== stringWidth(s)) expect.fail(`U+${s.codePointAt(0)!.toString(16)}: ${shipped(s)} != ${stringWidth(s)}`);
  }, 60_000);

  it('measures emoji sequences and random hard text as the package does', () => {
    for (const s of ['👨‍👩‍👧', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🇩🇪', '#️⃣', '1⃣', '👍🏽', '❤️', '©️', '⌚', '↔️', '↔', 'a😀b…c', '\x1b[31m😀\x1b[39m']) {
      expect(shipped(s), JSON.stringify(s)).toBe(stringWidth(s));
    }
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    for (let n = 0; n < 20_000; n++) {
      let s = '';
      for (let i = 1 + Math.floor(next() * 10); i > 0; i--) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
      expect(shipped(s), JSON.stringify(s)).toBe(stringWidth(s));
    }
  });
});
