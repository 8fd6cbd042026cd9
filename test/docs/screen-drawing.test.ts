/**
 * How a terminal screen becomes the documentation's picture and text capture (scripts/docs-gen/): a real
 * headless xterm is fed escape sequences, and the grid read from it is drawn.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { captureNames, readCapture, writeCaptures } from '../../scripts/docs-gen/doc-files';
import { gridText, readGrid, replaceText, type Grid } from '../../scripts/docs-gen/grid';
import { gridToSvg } from '../../scripts/docs-gen/svg';

const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

async function screenOf(bytes: string, cols = 20, rows = 4): Promise<Grid> {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  await new Promise<void>((resolve) => term.write(bytes, resolve));
  return readGrid(term);
}

describe('reading a screen', () => {
  it('keeps each cell with its colours and attributes, and a wide character as one cell of width 2', async () => {
    const grid = await screenOf('\x1b[1;36mab\x1b[0m \x1b[7mc\x1b[0m\x1b[38;2;1;2;3md\x1b[0m日x');
    const row = grid.lines[0]!;
    expect(row.slice(0, 2).map((c) => [c.ch, c.fg, c.bold])).toEqual([
      ['a', 'p6', true],
      ['b', 'p6', true],
    ]);
    expect(row[3]).toMatchObject({ ch: 'c', inverse: true, fg: 'd', bg: 'd' });
    expect(row[4]).toMatchObject({ ch: 'd', fg: '#010203' });
    expect(row[5]).toMatchObject({ ch: '日', width: 2 });
    expect(row[6]!.ch).toBe('x');
    expect(row.reduce((n, c) => n + c.width, 0)).toBe(20);
    expect(gridText(grid)).toBe('ab cd日x');
  });

  it('puts a machine-dependent value in its documented place only where it is the same length', async () => {
    const grid = await screenOf('SMTP 127.0.0.1:2531\r\nport 2531');
    expect(gridText(replaceText(grid, '127.0.0.1:2531', '127.0.0.1:2525'))).toBe('SMTP 127.0.0.1:2525\nport 2531');
    expect(() => replaceText(grid, '127.0.0.1:40001', '127.0.0.1:2525')).toThrow(/cannot put/);
  });
});

describe('drawing it as SVG', () => {
  it('draws runs of one style stretched to their cells, with the palette, bold bright and inverse swapped', async () => {
    const svg = gridToSvg(await screenOf('\x1b[1;36mhead\x1b[0m\r\n\x1b[7msel\x1b[0m <&>'), 'a "title"');
    // Bold cyan (6) is drawn bright cyan (14), as xterm draws bold.
    expect(svg).toContain(
      '<text x="14" y="28" textLength="36" lengthAdjust="spacingAndGlyphs" fill="#34e2e2" font-weight="bold">head</text>',
    );
    // Inverse: the default foreground becomes the background of its cells, the background its text.
    expect(svg).toContain('<rect x="14" y="33" width="27" height="19" fill="#d3d7cf"/>');
    expect(svg).toContain('fill="#1e1f22">sel</text>');
    // Text and attributes escaped; the spaces around a run are not drawn (its position says where it is).
    expect(svg).toContain(
      '<text x="50" y="47" textLength="27" lengthAdjust="spacingAndGlyphs" fill="#d3d7cf">&lt;&amp;&gt;</text>',
    );
    expect(svg).toContain('<title>a &quot;title&quot;</title>');
    expect(svg).toContain('aria-label="a &quot;title&quot;"');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="208" height="104"/);
  });

  it('gives a wide character a run of its own two cells wide, and draws nothing for blank cells', async () => {
    const svg = gridToSvg(await screenOf('a日b'), 't');
    expect(svg).toContain('textLength="18" lengthAdjust="spacingAndGlyphs" fill="#d3d7cf">日</text>');
    expect(svg).toContain('<text x="41" y="28" textLength="9" lengthAdjust="spacingAndGlyphs" fill="#d3d7cf">b</text>');
    expect(svg.match(/<text /g)).toHaveLength(3);
  });

  it('is the same for the same screen: no date, no random id', async () => {
    const bytes = '\x1b[32mLocal service\x1b[0m\r\n\x1b[2mlast checked\x1b[0m';
    expect(gridToSvg(await screenOf(bytes), 't')).toBe(gridToSvg(await screenOf(bytes), 't'));
  });
});

describe('text captures in Markdown', () => {
  it('writes only between the markers, and refuses a marker that names no screen', () => {
    const md =
      'intro\n<!-- capture:inbox -->\nold\n<!-- /capture:inbox -->\nmiddle\n<!-- capture:viewer -->\n<!-- /capture:viewer -->\nend\n';
    expect(captureNames(md)).toEqual(['inbox', 'viewer']);
    const out = writeCaptures(md, { inbox: 'INBOX', viewer: 'VIEWER', picker: 'PICKER' });
    expect(out).toBe(
      'intro\n<!-- capture:inbox -->\n```text\nINBOX\n```\n<!-- /capture:inbox -->\nmiddle\n' +
        '<!-- capture:viewer -->\n```text\nVIEWER\n```\n<!-- /capture:viewer -->\nend\n',
    );
    expect(readCapture(out, 'inbox')).toBe('INBOX');
    expect(writeCaptures(out, { inbox: 'INBOX', viewer: 'VIEWER' })).toBe(out);
    expect(() => writeCaptures('<!-- capture:nope -->\n<!-- /capture:nope -->', { inbox: 'x' })).toThrow(
      /names no screen/,
    );
  });
});
