import { describe, expect, it } from 'vitest';
import { textWidth } from '../../src/core/text-width';
import { wrapText } from '../../src/core/text-wrap';

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
    const out = wrapText(`${family}${family}${family}`, 3);
    expect(out.split('\n')).toEqual([family, family, family]);
  });

  it('shows a cluster wider than the width alone rather than looping', () => {
    expect(wrapText('日日', 1)).toBe('日\n日');
  });

  it('cuts at the width only when asked not to break at spaces', () => {
    expect(wrapText('[1] https://example.com/x', 10, { breakAtSpaces: false })).toBe('[1] https:\n//example.\ncom/x');
  });
});
