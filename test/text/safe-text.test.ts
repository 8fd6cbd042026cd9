import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import { isTerminalSafe, safeBlock, safeLine, safeText } from '../../src/text/safe-text';
import { HOSTILE_DIR } from '../harness/fixtures';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

// Nothing a terminal would act on: no ESC, no C1 (CSI U+009B included), no C0 but \n, no bidi control.
function expectInert(text: string): void {
  expect(isTerminalSafe(text), JSON.stringify(text)).toBe(true);
  expect(text).not.toMatch(/[\x1b\u009b\u009d\u0090]/);
}

describe('safeText: escape sequence families', () => {
  const cases: [string, string, string][] = [
    ['CSI 7-bit colour', `a ${ESC}[31mRED${ESC}[0m b`, 'a RED b'],
    ['CSI 7-bit clear screen and cursor move', `x${ESC}[2J${ESC}[10;10Hy`, 'xy'],
    ['CSI private mode (alt screen)', `x${ESC}[?1049hy`, 'xy'],
    ['CSI with intermediate byte', `x${ESC}[0 qy`, 'xy'],
    ['CSI as C1 U+009B', `x\u009b31my \u009b2J`, 'xy '],
    ['OSC 0 title by BEL', `a${ESC}]0;evil title${BEL}b`, 'ab'],
    ['OSC 2 title by ST', `a${ESC}]2;evil title${ST}b`, 'ab'],
    ['OSC 8 hyperlink by ST', `${ESC}]8;;https://evil.test${ST}click${ESC}]8;;${ST}`, 'click'],
    ['OSC 8 hyperlink by BEL', `${ESC}]8;;https://evil.test${BEL}click${ESC}]8;;${BEL}`, 'click'],
    ['OSC 52 clipboard by BEL', `a${ESC}]52;c;cm0gLXJmIH4=${BEL}b`, 'ab'],
    ['OSC 52 clipboard by ST', `a${ESC}]52;c;cm0gLXJmIH4=${ST}b`, 'ab'],
    ['OSC as C1 U+009D ended by U+009C', `a\u009d0;title\u009cb`, 'ab'],
    ['DCS (DECRQSS) by ST', `a${ESC}P$q"p${ST}b`, 'ab'],
    ['DCS as C1 U+0090', `a\u0090$qm\u009cb`, 'ab'],
    ['APC', `a${ESC}_payload${ST}b`, 'ab'],
    ['PM', `a${ESC}^privacy${ST}b`, 'ab'],
    ['SOS', `a${ESC}Xstring${ST}b`, 'ab'],
    ['ESC c full reset', `a${ESC}cb`, 'ab'],
    ['ESC ( B charset', `a${ESC}(Bb`, 'ab'],
    ['ESC 7 / ESC 8 save and restore cursor', `a${ESC}7b${ESC}8c`, 'abc'],
    ['ESC #8 screen alignment', `a${ESC}#8b`, 'ab'],
    ['lone ESC at the end', `end${ESC}`, 'end'],
    ['double ESC before CSI', `a${ESC}${ESC}[31mb`, 'ab'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const out = safeText(input);
      expect(out).toBe(expected);
      expectInert(out);
    });
  }

  it('an unterminated OSC loses only its introducer, not the rest of the message', () => {
    const out = safeText(`before ${ESC}]0;never ended and then the real text`);
    expectInert(out);
    expect(out).toContain('the real text');
  });

  it('a sequence rebuilt by removing another one is still removed', () => {
    // Removing the C1 CSI joins ESC and "[31m" into a fresh CSI: it must not survive.
    const out = safeText(`a${ESC}\u009b1m[31mb`);
    expectInert(out);
    expect(out).not.toContain(`${ESC}[`);
  });
});

describe('safeText: single characters', () => {
  it('removes C0 controls NUL BEL BS and DEL', () => {
    expect(safeText('a\x00b\x07c\x08d\x7fe')).toBe('abcde');
  });
  it('turns CR, CRLF, FF, VT and U+2028/2029 into line breaks (multiline) so nothing overwrites a line', () => {
    expect(safeBlock('one\rtwo\r\nthree\x0cfour\x0bfive\u2028six\u2029seven')).toBe(
      'one\ntwo\nthree\nfour\nfive\nsix\nseven',
    );
  });
  it('removes every C1 control U+0080-U+009F', () => {
    let all = '';
    for (let c = 0x80; c <= 0x9f; c += 1) all += String.fromCharCode(c);
    const out = safeText(`a${all}b`);
    expect(out).toBe('ab');
  });
  it('removes bidi overrides, embeddings, isolates and marks', () => {
    const out = safeText(
      '\u202eevil\u202c Bank \u2066x\u2069 \u2067y\u2068z\u2069 \u202a\u202b\u202d \u200e\u200f\u061c!',
    );
    expect(out).toBe('evil Bank x yz  !');
    expectInert(out);
  });
  it('removes soft hyphens and Hangul fillers (terminals draw them a column wide, Ink counts none)', () => {
    expect(safeText('Con\u00adfirm your ac\u00adcount')).toBe('Confirm your account');
    expect(safeText('a\u3164b\u115fc\uffa0d')).toBe('abcd');
    // Joiners and variation selectors that build emoji stay.
    expect(safeText('👨\u200d👩\u200d👧 ❤\ufe0f')).toBe('👨\u200d👩\u200d👧 ❤\ufe0f');
  });
  it('replaces lone surrogates and keeps real pairs', () => {
    expect(safeText('a\ud83db\ude00c 😀')).toBe('a\ufffdb\ufffdc 😀');
  });
  it('keeps ordinary Unicode, CJK and emoji intact', () => {
    const text = 'Grüße, 日本語のテキスト, ½ € — “quotes” 👍🏽';
    expect(safeText(text)).toBe(text);
  });
  it('returns "" for non-strings and never throws', () => {
    for (const v of [undefined, null, 42, {}, [], Symbol('s')]) expect(safeText(v)).toBe('');
  });
});

describe('safeText: what is left of a colour sequence whose ESC went before it came', () => {
  // A sender's address parser (ours among them) drops the ESC of "Evil ESC[31mRED ESC[0m" and passes
  // "[31m" on as text: in a one-line field, the colour's leftover goes too.
  it('drops SGR leftovers from a one-line field (a From, a subject, a file name)', () => {
    expect(safeLine('Evil [31mRED[0m')).toBe('Evil RED');
    expect(safeLine('[1;31mAlert[m now')).toBe('Alert now');
    expect(safeLine('x[38;5;196mred[0m')).toBe('xred');
  });
  it("keeps brackets that are text: [1] references, [2m] measures, [mailto, a body's [0m", () => {
    expect(safeLine('See [1] and [x]')).toBe('See [1] and [x]');
    expect(safeLine('Invoice [2026]')).toBe('Invoice [2026]');
    expect(safeLine('Room [2m] [mailto:x]')).toBe('Room [2m] [mailto:x]');
    expect(safeText('printf "\\e[31mred"', { multiline: true })).toBe('printf "\\e[31mred"');
  });
});

describe('safeText: line handling and length', () => {
  it('multiline keeps \\n and expands tabs to 8-column stops', () => {
    expect(safeBlock('a\tb\nabcdefgh\tc\n\td')).toBe('a       b\nabcdefgh        c\n        d');
  });
  it('single-line folds line breaks and tabs into one space', () => {
    expect(safeLine('Subject\r\n\tcontinued\nthird')).toBe('Subject continued third');
  });
  it('cuts long single lines with an ellipsis, never inside a surrogate pair', () => {
    expect(safeLine('x'.repeat(5000)).length).toBe(1000);
    expect(safeLine('x'.repeat(5000)).endsWith('…')).toBe(true);
    const cut = safeText('ab😀cd', { maxLength: 4 });
    expect(cut).toBe('ab…');
  });
  it('a field it will cut is cut before any pattern runs on it (10 raw characters a kept one), and says so', () => {
    // 10,000 colour changes before the words: far more than a 40-character field can show. Only the
    // first 416 raw characters are read: the words past them are not (and the cut is marked).
    const flood = `${`${ESC}[31m`.repeat(10_000)}visible words`;
    expect(safeText(flood, { maxLength: 40 })).toBe('…');
    expect(safeText(`${`${ESC}[31m`.repeat(50)}visible words`, { maxLength: 40 })).toBe('visible words');
    // A surrogate pair at the raw cut is left whole or not at all.
    const pairAtCut = `${'a'.repeat(40 * 10 + 15)}😀${'b'.repeat(100)}`;
    expect(safeText(pairAtCut, { maxLength: 40 })).toBe(`${'a'.repeat(39)}…`);
    expect(safeText(pairAtCut, { maxLength: 40 })).not.toContain('\ufffd');
  });
  it('keeps very long lines whole in multiline mode', () => {
    const long = 'word '.repeat(100_000);
    expect(safeBlock(long)).toBe(long);
  });
  it('keeps the words around sequences intact', () => {
    const out = safeText(`Your ${ESC}[1mverification${ESC}[0m code is ${ESC}]0;x${BEL}123456`);
    expect(out).toBe('Your verification code is 123456');
  });
  it('is linear on floods of introducers (a hostile mail cannot hang the app)', () => {
    const floods = [
      `${'\u0090'.repeat(200_000)}${'x'.repeat(200_000)}`,
      `\u009d${'y'.repeat(50)}`.repeat(20_000),
      `${ESC}]`.repeat(200_000),
      `${ESC}[`.repeat(200_000),
      `${ESC}[1;`.repeat(100_000),
    ];
    // A quadratic scan of these takes minutes, far past the test timeout; a linear one takes milliseconds.
    for (const flood of floods) {
      const out = safeBlock(flood);
      expectInert(out);
    }
  });
});

describe('safeText on the hostile fixtures (parsed by mailparser)', () => {
  const dir = HOSTILE_DIR;
  // Words that must survive, per fixture; payload fragments that must not.
  const expectations: Record<string, { words: string[]; gone?: string[] }> = {
    '01-raw-csi-subject.eml': {
      words: ['Your code', 'RED', 'inside', 'Plain body', 'here.'],
      gone: ['[2J', '[31m', '[10;10H'],
    },
    '02-bidi-sender.eml': { words: ['evil', 'Bank', 'Invoice ready', 'right-to-left override'] },
    '03-qp-escape.eml': { words: ['blinking', 'and a bell', 'here.'], gone: ['[5m', '[0m'] },
    '04-html-script.eml': { words: ['Welcome', 'Confirm your account'] },
    '05-nul-and-del.eml': { words: ['NUL', 'and DEL', 'in subject', 'XYZ'] },
  };
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.eml'))
    .sort();

  it('finds every fixture this test knows about', () => {
    expect(files).toEqual(Object.keys(expectations).sort());
  });

  for (const file of files) {
    it(`${file}: no control sequence remains, visible words intact`, async () => {
      const raw = readFileSync(join(dir, file), 'utf8').replaceAll('{TO}', 'someone@tempmail.test');
      const mail = await simpleParser(Buffer.from(raw, 'utf8'));
      const parts = [
        safeLine(mail.subject),
        safeLine(mail.from?.value[0]?.name),
        safeBlock(mail.text),
        safeBlock(typeof mail.html === 'string' ? mail.html : ''),
      ];
      for (const part of parts) expectInert(part);
      const all = parts.join('\n');
      const { words, gone = [] } = expectations[file] ?? { words: [] };
      for (const word of words) expect(all).toContain(word);
      for (const fragment of gone) expect(all).not.toContain(fragment);
    });
  }
});
