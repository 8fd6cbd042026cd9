import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { confirmLines, MAX_STATUS_LINES, statusLines } from '../../../src/tui/widgets/chrome';

const widest = (lines: string[]) => Math.max(...lines.map(textWidth));
const words = (lines: string[]) => lines.join(' ').replace(/\s+/g, ' ').trim();

describe('confirmLines', () => {
  it('wraps a long question whole, with the answers spelled out, at 80 and at 40 columns', () => {
    const question =
      'Forget quiet-otter-4821@tempmail.test? It cannot be reopened, and it keeps receiving mail until it expires.';
    for (const columns of [80, 40]) {
      const lines = confirmLines(question, columns);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.length).toBeLessThanOrEqual(MAX_STATUS_LINES);
      expect(widest(lines)).toBeLessThanOrEqual(columns);
      // Nothing is cut: every word of the question and of the answer is there, in order.
      expect(words(lines)).toBe(`${question} y = yes, any other key = no`);
    }
    // A question that fits stays on one line.
    expect(confirmLines('Delete "x"?', 80)).toEqual(['Delete "x"? y = yes, any other key = no']);
  });

  it('never splits the answer over two lines ("any other / key = no"), whatever the question\'s length', () => {
    for (const columns of [80, 40]) {
      for (let n = 1; n <= 40; n += 1) {
        const lines = confirmLines(`Delete "${'Weekly digest '.repeat(n).trim()}"?`, columns);
        expect(widest(lines)).toBeLessThanOrEqual(columns);
        expect(
          lines.some((line) => line.includes('y = yes, any other key = no') || line.endsWith('(y/n)')),
          lines.join('|'),
        ).toBe(true);
      }
      // An answer led by the question's own "?" keeps it on the question's line.
      const forget = confirmLines('Forget quiet-otter-4821@tempmail.test', columns, [
        '? y: here only · D: delete it there too · other key: no',
        '? y here · D there too',
      ]);
      expect(forget[0]).toMatch(/^Forget quiet-otter-4821@tempmail\.test\?/);
    }
  });

  it('past MAX_STATUS_LINES cuts the question, never the answer keys', () => {
    const question = `Forget ${'a-very-long-local-part'.repeat(12)}@tempmail.test? It cannot be reopened.`;
    for (const columns of [80, 40]) {
      const lines = confirmLines(question, columns);
      expect(lines.length).toBe(MAX_STATUS_LINES);
      expect(widest(lines)).toBeLessThanOrEqual(columns);
      expect(lines.at(-1)).toMatch(/… \(y\/n\)$/);
      expect(lines[0]!.startsWith('Forget')).toBe(true);
    }
  });

  it('takes other answers, longest first: the first that fits within the lines', () => {
    const answers = [
      ': o overwrite · k keep both (report (1).pdf) · other key cancels',
      ': o overwrite · k keep both · other key cancels',
      ': o overwrite · k keep both',
    ];
    const ask = (where: string, columns: number) => confirmLines(`report.pdf exists in ${where}`, columns, answers);
    expect(ask('~/Downloads', 100)).toEqual([
      'report.pdf exists in ~/Downloads: o overwrite · k keep both (report (1).pdf) · other key cancels',
    ]);
    const at80 = ask('~/Downloads', 80);
    expect(at80).toHaveLength(2);
    expect(words(at80)).toBe(
      'report.pdf exists in ~/Downloads: o overwrite · k keep both (report (1).pdf) · other key cancels',
    );
    const cut = ask(`/mnt/${'shared/'.repeat(40)}Downloads`, 80);
    expect(cut).toHaveLength(MAX_STATUS_LINES);
    expect(cut.at(-1)).toMatch(/…: o overwrite · k keep both$/);
    expect(widest(cut)).toBeLessThanOrEqual(80);
  });
});

describe('statusLines', () => {
  const error =
    "Could not load the domains: That address answered with a web page, not this service's API (HTTP 404): check the base URL";

  it('wraps an error at 80 and at 40 columns, losing no word', () => {
    for (const columns of [80, 40]) {
      const lines = statusLines(error, columns);
      expect(lines.length).toBe(columns === 80 ? 2 : 4);
      expect(widest(lines)).toBeLessThanOrEqual(columns);
      expect(words(lines)).toBe(error);
    }
  });

  it('keeps a short status on one line and cuts past MAX_STATUS_LINES with an ellipsis', () => {
    expect(statusLines('1 new message', 80)).toEqual(['1 new message']);
    expect(statusLines('', 80)).toEqual(['']);
    const lines = statusLines(`${error} `.repeat(3), 40);
    expect(lines).toHaveLength(MAX_STATUS_LINES);
    expect(lines.at(-1)).toMatch(/…$/);
    expect(widest(lines)).toBeLessThanOrEqual(40);
  });
});
