import { describe, expect, it } from 'vitest';
import { detectCode } from '../../src/content/codes';
import { flattenDeep, MAX_DEPTH, MAX_INDENT } from '../../src/content/html-depth';
import { renderBody, renderBodyAsync, type RenderedBody } from '../../src/content/html-text';
import { isTerminalSafe } from '../../src/text/safe-text';
import { textWidth } from '../../src/text/text-width';
import { newsletterHtml } from '../../bench/html-fixture';

// html-to-text walks the DOM by recursion: from a fresh stack it overflowed at about 1,700 nested
// links, 2,200 nested divs or lists and 660 nested tables (2,000 elements); 4,000 took `read` down.
// These go to 100,000, far past it, in every kind of element a mail nests.
const DEEP = 100_000;
const INNER = 'The innermost words';

/** `open`/`close` repeated until the nesting is `depth` elements deep, around `inner`. */
function nest(open: string, close: string, inner = INNER, depth = DEEP): string {
  const per = open.split('<').length - 1;
  const n = Math.ceil(depth / per);
  return open.repeat(n) + inner + close.repeat(n);
}

const KINDS: Record<string, [string, string]> = {
  div: ['<div>', '</div>'],
  span: ['<span>', '</span>'],
  'inline mix': ['<b><i><font color="red"><em><strong>', '</strong></em></font></i></b>'],
  table: ['<table><tr><td>', '</td></tr></table>'],
  'table with tbody and th': ['<table><tbody><tr><th>', '</th></tr></tbody></table>'],
  'unordered list': ['<ul><li>', '</li></ul>'],
  'ordered list': ['<ol><li>', '</li></ol>'],
  'definition list': ['<dl><dd>', '</dd></dl>'],
  blockquote: ['<blockquote>', '</blockquote>'],
  'links in bold italics': ['<a href="https://d.example/"><b><i>', '</i></b></a>'],
  mixed: [
    '<div><table><tr><td><ul><li><span><b><blockquote><ol><li><p><font>',
    '</font></p></li></ol></blockquote></b></span></li></ul></td></tr></table></div>',
  ],
  'never closed': ['<div><section><span>', ''],
};

function expectReadable(body: RenderedBody, width: number): void {
  // At 40 columns the words may wrap after 16 levels of indentation: they are there, in order.
  expect(body.text.replace(/\s+/g, ' ')).toContain(INNER);
  expect(isTerminalSafe(body.text)).toBe(true);
  expect(Math.max(...body.text.split('\n').map(textWidth))).toBeLessThanOrEqual(width);
}

describe('deeply nested HTML', () => {
  for (const [kind, [open, close]] of Object.entries(KINDS)) {
    it(`shows the text of ${DEEP.toLocaleString('en')} nested elements: ${kind}`, async () => {
      const input = { bodyHtml: nest(open, close), bodyText: null };
      expectReadable(renderBody(input, 80, { maxBytes: Infinity }), 80);
      expectReadable(await renderBodyAsync(input, 40), 40);
    });
  }

  it('keeps the words of every level, each level on its own line', () => {
    const levels = 20_000;
    let html = '';
    for (let i = 0; i < levels; i++) html += `<div>w${i}`;
    html += '</div>'.repeat(levels);
    const { text } = renderBody({ bodyHtml: html, bodyText: null }, 80, { maxBytes: Infinity });
    const words = text.split(/\s+/).filter((w) => /^w\d+$/.test(w));
    expect(words).toEqual(Array.from({ length: levels }, (_, i) => `w${i}`));
    expect(text.split('\n').filter((l) => /^w\d+$/.test(l.trim())).length).toBe(levels);
  });

  it('keeps hidden what is hidden past the limit: scripts, styles, hidden and display:none blocks', () => {
    const hidden =
      '<script>alert("script text")</script><style>.x { color: red }</style><div hidden>hidden words</div>' +
      '<span style="DISPLAY: none">pre-header words</span><noscript>noscript words</noscript>visible words';
    const { text } = renderBody({ bodyHtml: nest('<div>', '</div>', hidden, 5000), bodyText: null }, 80);
    expect(text).toContain('visible words');
    for (const gone of ['script text', 'color', 'hidden words', 'pre-header', 'noscript'])
      expect(text).not.toContain(gone);
  });

  it('keeps a link past the limit as a numbered link, and table cells apart', () => {
    const inner =
      '<table><tr><td>Your code</td><td>482913</td></tr></table><p>or <a href="https://deep.example/verify?t=4f2a">verify here</a></p>';
    const body = renderBody({ bodyHtml: nest('<div>', '</div>', inner, 5000), bodyText: null }, 80);
    expect(body.text).toMatch(/Your code\s+482913/);
    expect(body.text).toContain('verify here [1]');
    expect(body.links).toEqual([{ n: 1, url: 'https://deep.example/verify?t=4f2a', text: 'verify here' }]);
    expect(detectCode({ subject: 'Verify', text: body.text })?.code).toBe('482913');
  });

  it('indents lists and quotes at most MAX_INDENT levels, so no line starts off the screen', () => {
    const body = renderBody(
      { bodyHtml: nest('<blockquote>quoted ', '</blockquote>', INNER, 1000), bodyText: null },
      80,
    );
    const lines = body.text.split('\n');
    expect(lines.filter((l) => l.includes('quoted')).length).toBe(1000);
    // "> " per level: never more than MAX_INDENT of them before the words.
    for (const line of lines)
      expect(/^((?:> ?)*)/.exec(line)![1]!.replace(/ /g, '').length).toBeLessThanOrEqual(MAX_INDENT);
    expect(body.text).toContain(INNER);
  });

  it('leaves HTML within the limits exactly as it was', () => {
    const news = newsletterHtml(200 * 1024);
    expect(flattenDeep(news)).toBe(news);
    const atLimit = nest('<div>', '</div>', INNER, MAX_DEPTH);
    expect(flattenDeep(atLimit)).toBe(atLimit);
    const lists = nest('<ul><li>', '</li></ul>', INNER, 2 * MAX_INDENT);
    expect(flattenDeep(lists)).toBe(lists);
    // One level past either limit is rewritten, the text kept.
    const past = nest('<div>', '</div>', INNER, MAX_DEPTH + 1);
    expect(flattenDeep(past)).not.toBe(past);
    expect(flattenDeep(past)).toContain(INNER);
    expect(flattenDeep(nest('<ul><li>', '</li></ul>', INNER, 2 * MAX_INDENT + 2))).not.toContain(
      '<ul>'.repeat(MAX_INDENT + 1),
    );
  });

  it('never lets the rewrite make markup out of text', () => {
    // Text between dropped tags joins up; an escaped "<" must not become a tag when it does.
    const inner = '&lt;<b>div</b>&gt; 1 &lt; 2 <i>&amp;</i> x';
    const flat = flattenDeep(nest('<span>', '</span>', inner, MAX_DEPTH + 10));
    const { text } = renderBody({ bodyHtml: nest('<span>', '</span>', inner, MAX_DEPTH + 10), bodyText: null }, 80);
    expect(text).toContain('<div> 1 < 2 & x');
    expect(flat).not.toContain('<div>');
  });
});
