import { describe, expect, it } from 'vitest';
import { textWidth } from '../../src/text/text-width';
import { TOO_WIDE, wrapText } from '../../src/text/text-wrap';
import { JAPANESE, lineProblems, splitClusters, squeezed } from '../content/line-breaks';

const widths = (s: string) => s.split('\n').map(textWidth);

describe('wrapText', () => {
  it('leaves lines that fit, and keeps existing line breaks and blank lines', () => {
    expect(wrapText('short\n\nlines\n', 10)).toBe('short\n\nlines\n');
  });

  it('breaks at the last space that fits and drops the spaces at the break', () => {
    expect(wrapText('the quick brown fox jumps', 10)).toBe('the quick\nbrown fox\njumps');
    expect(wrapText('aaaa bbbb', 4)).toBe('aaaa\nbbbb');
  });

  it('keeps indentation on the first piece and does not break inside it', () => {
    expect(wrapText('    indented words here', 12)).toBe('    indented\nwords here');
  });

  it('hard-breaks a word longer than the width', () => {
    expect(wrapText('x'.repeat(25), 10)).toBe(`${'x'.repeat(10)}\n${'x'.repeat(10)}\n${'x'.repeat(5)}`);
    expect(wrapText('see https://example.com/abcdefghij', 12)).toBe('see\nhttps://exam\nple.com/abcd\nefghij');
  });

  it('counts wide characters as two columns and never splits one', () => {
    const out = wrapText('日本語のテキスト', 5);
    expect(out).toBe('日本\n語の\nテキ\nスト');
    expect(Math.max(...widths(out))).toBeLessThanOrEqual(5);
    expect(wrapText('ab😀😀😀', 4)).toBe('ab😀\n😀😀');
  });

  it('keeps grapheme clusters whole', () => {
    const family = '👨‍👩‍👧';
    const out = wrapText(`${family}${family}${family}`, 8);
    expect(out.split('\n')).toEqual([family, family, family]);
  });

  it('puts an ellipsis for a cluster wider than the width, rather than looping or running past the edge', () => {
    expect(wrapText('日日', 1)).toBe('…\n…');
    expect(wrapText('ab 👨‍👩‍👧 cd', 4)).toBe('ab …\ncd');
  });

  it('cuts at the width only when asked not to break at spaces', () => {
    expect(wrapText('[1] https://example.com/x', 10, { breakAtSpaces: false })).toBe('[1] https:\n//example.\ncom/x');
  });

  it('fills lines of Japanese text, breaking between characters but not before 。 、 」 ー or small kana', () => {
    for (const width of [20, 30, 40]) {
      const out = wrapText(JAPANESE, width);
      expect(lineProblems(out, width), `at ${width}:\n${out}`).toEqual([]);
      expect(squeezed(out)).toBe(squeezed(JAPANESE));
    }
    expect(wrapText(JAPANESE, 40).split('\n').slice(0, 3)).toEqual([
      'こんにちは 🎉 確認コードは 739201 です。',
      'ご登録ありがとうございます。このコードの',
      '有効期限は十分間です。お心当たりのない場',
    ]);
    // Kinsoku moves the character before a closing mark down with it rather than start a line with it.
    expect(wrapText('あいうえおかきく。けこ', 16)).toBe('あいうえおかき\nく。けこ');
    expect(wrapText('あいうえおかきとっさ', 16)).toBe('あいうえおかき\nとっさ');
    expect(wrapText('あいうえおか「きく」', 14)).toBe('あいうえおか\n「きく」');
  });

  it('breaks a mixed English and Japanese line at spaces and beside wide characters, keeping Latin words and URLs whole', () => {
    const line =
      'Your code for アカウント登録 is 739201、有効期限は10分です。Please enter it at https://example.com/verify soon.';
    for (const width of [28, 32, 40]) {
      const out = wrapText(line, width);
      expect(lineProblems(out, width), `at ${width}:\n${out}`).toEqual([]);
      expect(squeezed(out)).toBe(squeezed(line));
      const words = out.split(/[\s\n]+/).join(' ');
      for (const word of ['Your', 'code', '739201', 'Please', 'enter', 'https://example.com/verify', 'soon.'])
        expect(words).toContain(word);
    }
    expect(wrapText(line, 28).split('\n')).toEqual([
      'Your code for アカウント登録',
      'is 739201、有効期限は10分で',
      'す。Please enter it at',
      'https://example.com/verify',
      'soon.',
    ]);
  });

  it('never splits an emoji ZWJ sequence, a skin tone or a combining mark between lines, and keeps kinsoku around them', () => {
    const text = 'テスト👨‍👩‍👧‍👦テスト👩🏽‍💻です。か\u3099ぎ🏳️‍🌈ありがとう'.repeat(3);
    // The family is 11 columns wide (4 people, 3 joiners: docs/architecture.md, "Cell widths").
    expect(textWidth('👨‍👩‍👧‍👦')).toBe(11);
    for (let width = 2; width <= 24; width++) {
      const out = wrapText(text, width);
      expect(splitClusters(text + TOO_WIDE, out), `at ${width}`).toEqual([]);
      // A cluster wider than the line is an ellipsis; anything narrower is kept.
      if (width >= 11) expect(out.replace(/\n/g, '')).toBe(text);
      else expect(out).toContain(TOO_WIDE);
      expect(Math.max(...widths(out))).toBeLessThanOrEqual(width);
      // Lines are full: the next line's first cluster would not have fitted (kinsoku may take 2 more).
      const lines = width >= 6 ? out.split('\n') : [];
      for (let i = 0; i + 1 < lines.length; i++) {
        const next = [...new Intl.Segmenter().segment(lines[i + 1]!)][0]!.segment;
        expect(textWidth(lines[i]!) + textWidth(next), `at ${width}:\n${out}`).toBeGreaterThan(width - (width % 2) - 2);
      }
      if (width >= 6)
        expect(
          lineProblems(out, width).filter((p) => !/ is only /.test(p)),
          `at ${width}:\n${out}`,
        ).toEqual([]);
    }
  });

  it('hangs continuation lines under a list bullet and repeats quote markers when asked', () => {
    expect(wrapText(' * first item which is long enough to wrap', 20, { hang: true })).toBe(
      ' * first item which\n   is long enough to\n   wrap',
    );
    expect(wrapText('> > quoted text that wraps here', 16, { hang: true })).toBe(
      '> > quoted text\n> > that wraps\n> > here',
    );
    expect(wrapText(' 1. 日本語のリスト項目はとても長い', 20, { hang: true })).toBe(
      ' 1. 日本語のリスト項\n    目はとても長い',
    );
    expect(wrapText('    indented words here', 12)).toBe('    indented\nwords here');
  });
});
