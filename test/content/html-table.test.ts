/**
 * HTML tables in the viewer (issue 14.19): a simple data table keeps its columns within the width,
 * measured in terminal columns; layout tables (and tables too wide to hold) read as rows.
 */
import { describe, expect, it } from 'vitest';
import { renderBody } from '../../src/content/html-text';
import { textWidth } from '../../src/text/text-width';

const render = (html: string, width: number) => renderBody({ bodyHtml: html, bodyText: null }, width);
const lines = (s: string) => s.split('\n');

/** Where the text `cell` starts on `line`, in terminal columns (-1 when it is not there). */
function columnOf(line: string, cell: string): number {
  const at = line.indexOf(cell);
  return at < 0 ? -1 : textWidth(line.slice(0, at));
}

const ORDER = `<p>Your order</p>
<table>
  <thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>
  <tbody>
    <tr><td>Blue shirt, long sleeves, organic cotton</td><td>2</td><td>$40.00</td></tr>
    <tr><td>Socks</td><td>10</td><td>$12.50</td></tr>
    <tr><td>配送料（速達）</td><td>1</td><td>¥500</td></tr>
    <tr><td colspan="3">Total: $52.50 and ¥500</td></tr>
  </tbody>
</table>
<p>Thanks for your order.</p>`;

describe('data tables keep their columns', () => {
  it('at 80 columns: every row starts each column at the same place, CJK measured by its width', () => {
    const text = render(ORDER, 80).text;
    const rows = ['Item', 'Blue shirt', 'Socks', '配送料'].map(
      (first) => lines(text).find((l) => l.startsWith(first))!,
    );
    expect(rows.every(Boolean)).toBe(true);
    const qty = rows.map((row, i) => columnOf(row, ['Qty', '2', '10', '1'][i]!));
    const price = rows.map((row, i) => columnOf(row, ['Price', '$40.00', '$12.50', '¥500'][i]!));
    expect(new Set(qty).size).toBe(1);
    expect(new Set(price).size).toBe(1);
    expect(qty[0]).toBeGreaterThan(textWidth('Blue shirt, long sleeves, organic cotton'));
    // A row of one cell spans the table; the paragraphs around stay apart.
    expect(text).toContain('\nTotal: $52.50 and ¥500\n');
    expect(text).toMatch(/^Your order\n\nItem/);
    expect(text).toMatch(/\n\nThanks for your order\.$/);
  });

  it('at 40 columns the widest column wraps its cells and the others stay lined up', () => {
    const text = render(ORDER, 40).text;
    expect(Math.max(...lines(text).map(textWidth))).toBeLessThanOrEqual(40);
    const price = ['Price', '$40.00', '$12.50', '¥500'].map((cell) =>
      columnOf(lines(text).find((l) => l.includes(cell))!, cell),
    );
    expect(new Set(price).size).toBe(1);
    // The long item wraps within its column: its second line right under its first, nothing lost.
    const first = lines(text).findIndex((l) => l.startsWith('Blue shirt, long sleeves,'));
    expect(first).toBeGreaterThan(0);
    expect(lines(text)[first]).toMatch(/ 2 +\$40\.00$/);
    expect(lines(text)[first + 1]).toBe('organic cotton');
  });

  it('keeps a link in a cell numbered, and a code beside its label on one line', () => {
    const body = render(
      '<table><tr><td>Your code</td><td><b>482913</b></td></tr><tr><td>Confirm</td><td><a href="https://acme.example/c?t=9f">here</a></td></tr></table>',
      80,
    );
    expect(body.text).toContain('Your code  482913');
    expect(body.text).toContain('Confirm    here [1]');
    expect(body.links).toEqual([{ n: 1, url: 'https://acme.example/c?t=9f', text: 'here' }]);
  });
});

describe('other tables read as rows', () => {
  it('a layout table (a table inside, or one column) keeps its text as rows, not squeezed into columns', () => {
    const layout =
      '<table><tr><td><table><tr><td>Logo</td><td>Menu</td></tr></table></td></tr>' +
      '<tr><td><h1>Welcome</h1><p>A long paragraph of a layout table that goes on for a while, as newsletters do.</p></td></tr></table>';
    const text = render(layout, 80).text;
    expect(text).toContain('A long paragraph of a layout table that goes on for a while, as newsletters do.');
    expect(text).toContain('Welcome');
  });

  it('a table with more columns than the width can hold becomes rows of cells apart, within the width', () => {
    const header = Array.from({ length: 10 }, (_, i) => `<th>Column ${i + 1}</th>`).join('');
    const row = Array.from({ length: 10 }, (_, i) => `<td>value-${i + 1}</td>`).join('');
    const text = render(`<table><tr>${header}</tr><tr>${row}</tr></table>`, 40).text;
    expect(Math.max(...lines(text).map(textWidth))).toBeLessThanOrEqual(40);
    expect(text.replace(/\s+/g, ' ')).toContain('Column 1 Column 2 Column 3');
    expect(text.replace(/\s+/g, ' ')).toContain('value-1 value-2 value-3');
  });
});
