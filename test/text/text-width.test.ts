import { describe, expect, it } from 'vitest';
import { clusters, fitToWidth, textWidth, truncateToWidth } from '../../src/text/text-width';
import { CLUSTERED, withWidths } from '../../src/text/active-widths';
import { RECENT_EMOJI_UNICODE } from '../../src/text/terminal-width';

describe('textWidth', () => {
  it('counts ASCII one column each', () => {
    expect(textWidth('')).toBe(0);
    expect(textWidth('hello, world')).toBe(12);
  });

  it('counts CJK, Hangul, kana and fullwidth forms two columns each', () => {
    expect(textWidth('日本語')).toBe(6);
    expect(textWidth('한국어')).toBe(6);
    expect(textWidth('カタカナ')).toBe(8);
    expect(textWidth('ＡＢＣ')).toBe(6);
    expect(textWidth('中文 mixed')).toBe(10);
    // A CJK Extension B ideograph is a surrogate pair: still one character, two columns.
    expect(textWidth('𠀋')).toBe(2);
  });

  it('counts an emoji sequence at the widest a terminal draws it: its code points added up, a joiner one column', () => {
    expect(textWidth('😀')).toBe(2);
    // tmux 3.3 and xterm put the skin tone in a cell of its own.
    expect(textWidth('👍🏽')).toBe(4);
    // xterm and VTE draw each person; Terminal.app gives each ZWJ a column too.
    expect(textWidth('👨‍👩‍👧')).toBe(8);
    expect(textWidth('🇩🇪')).toBe(2);
    // VS16 makes a one-column symbol two wide; a keycap is its digit made an emoji.
    expect(textWidth('❤️')).toBe(2);
    expect(textWidth('1️⃣')).toBe(2);
    // Text-presentation symbols stay narrow.
    expect(textWidth('❤')).toBe(1);
    expect(textWidth('©')).toBe(1);
  });

  it('counts the spacing vowels and conjunct consonants of Thai and Indic scripts, as terminals add them up', () => {
    expect(textWidth('กำ')).toBe(2);
    expect(textWidth('ทำ'.repeat(40))).toBe(80);
    expect(textWidth('क्ष')).toBe(2);
    expect(textWidth('தமிழ்')).toBe(4);
    expect(textWidth('مَرْحَبًا')).toBe(5);
  });

  it('counts an RGI emoji cluster two columns where the terminal clusters graphemes (mode 2027), but the newest emoji and other scripts as before', () => {
    withWidths(CLUSTERED, () => {
      for (const emoji of ['👍🏽', '👩🏽‍💻', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', '❤️', '1️⃣', '⛹🏻‍♂️'])
        expect(textWidth(emoji), emoji).toBe(2);
      // Emoji 17: foot 1.25 drew this five columns wide, its tables a version behind.
      expect(textWidth('👨🏻‍🫯‍👨🏼')).toBe(12);
      expect(textWidth('ทำ'.repeat(40))).toBe(80);
      expect(textWidth('क्ष')).toBe(2);
      expect(textWidth('এ\u200cই')).toBe(3);
    });
    expect(textWidth('👨‍👩‍👧‍👦')).toBe(11);
  });

  it('knows the newest emoji of the Unicode version Node has (extend RECENT_EMOJI in terminal-width.ts when this fails)', () => {
    expect(Number(process.versions.unicode)).toBeLessThanOrEqual(Number(RECENT_EMOJI_UNICODE));
  });

  it('counts combining marks and format characters zero columns', () => {
    expect(textWidth('e\u0301')).toBe(1);
    expect(textWidth('a\u200bb')).toBe(2);
    expect(textWidth('Ünïcödé')).toBe(7);
    expect(textWidth('\u00ad')).toBe(0);
  });

  it('agrees with the terminal width of accented Latin, Cyrillic, Greek and box drawing', () => {
    expect(textWidth('Привет мир')).toBe(10);
    expect(textWidth('αβγ')).toBe(3);
    expect(textWidth('┌─┐')).toBe(3);
  });
});

describe('truncateToWidth', () => {
  it('returns short strings unchanged', () => {
    expect(truncateToWidth('abc', 5)).toBe('abc');
    expect(truncateToWidth('日本', 4)).toBe('日本');
  });

  it('cuts ASCII with an ellipsis that fits in the budget', () => {
    expect(truncateToWidth('abcdefgh', 5)).toBe('abcd…');
    expect(truncateToWidth('abcdefgh', 5, '')).toBe('abcde');
    expect(truncateToWidth('abcdefgh', 5, '...')).toBe('ab...');
  });

  it('never cuts a wide character in half', () => {
    // 3 columns: one ideograph (2) fits, the next would need 2 more.
    expect(truncateToWidth('日本語', 3, '')).toBe('日');
    expect(truncateToWidth('日本語', 4)).toBe('日…');
    expect(textWidth(truncateToWidth('日本語', 5))).toBeLessThanOrEqual(5);
  });

  it('never splits a surrogate pair or an emoji cluster', () => {
    const s = '😀👨‍👩‍👧🇩🇪x';
    for (let cols = 0; cols <= 8; cols++) {
      for (const ellipsis of ['', '…']) {
        const cut = truncateToWidth(s, cols, ellipsis);
        expect(textWidth(cut)).toBeLessThanOrEqual(cols);
        // Every cluster in the cut is a whole cluster of the input (or the ellipsis).
        const body = ellipsis && cut.endsWith(ellipsis) ? cut.slice(0, -ellipsis.length) : cut;
        expect(s.startsWith(body)).toBe(true);
        expect(/[\ud800-\udbff]$/.test(body)).toBe(false);
        expect(body.endsWith('\u200d')).toBe(false);
      }
    }
  });

  it('handles zero and negative widths', () => {
    expect(truncateToWidth('abc', 0)).toBe('');
    expect(truncateToWidth('abc', -3)).toBe('');
    expect(truncateToWidth('日本', 1)).toBe('…');
    expect(truncateToWidth('日本', 1, '')).toBe('');
  });
});

describe('fitToWidth and clusters', () => {
  it('pads to exactly the column count, also after cutting a wide char', () => {
    expect(fitToWidth('ab', 4)).toBe('ab  ');
    expect(textWidth(fitToWidth('日本語', 5, ''))).toBe(5);
    expect(fitToWidth('日本語', 5, '')).toBe('日本 ');
  });

  it('splits into clusters with widths', () => {
    expect(clusters('a日👍🏽')).toEqual([
      { text: 'a', width: 1 },
      { text: '日', width: 2 },
      { text: '👍🏽', width: 4 },
    ]);
  });
});
