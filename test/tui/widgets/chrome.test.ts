import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { confirmText } from '../../../src/tui/widgets/chrome';

describe('confirmText', () => {
  it('keeps the answer keys (shortened to (y/n)) when the question is too long for the line', () => {
    const question = `Forget ${'a-very-long-local-part'.repeat(3)}@tempmail.test? It cannot be reopened.`;
    const line = confirmText(question, 80);
    expect(textWidth(line)).toBe(80);
    expect(line.trimEnd()).toMatch(/… \(y\/n\)$/);
    expect(line.startsWith('Forget a-very-long')).toBe(true);
    // Short questions get the answers spelled out; a question that fits only with the short form keeps it whole.
    expect(confirmText('Delete "x"?', 80).trimEnd()).toBe('Delete "x"? y = yes, any other key = no');
    expect(confirmText(`Leave ${'b'.repeat(30)}@tempmail.test for a new address?`, 80).trimEnd()).toMatch(/for a new address\? \(y\/n\)$/);
    expect(confirmText(question, 30).trimEnd()).toMatch(/… \(y\/n\)$/);
    expect(textWidth(confirmText(question, 30))).toBe(30);
  });

  it('takes other answers, longest first: the first that fits whole, else the last after the question cut', () => {
    const answers = [': o overwrite · k keep both (report (1).pdf) · other key cancels', ': o overwrite · k keep both · other key cancels', ': o overwrite · k keep both'];
    const ask = (where: string, columns: number) => confirmText(`report.pdf exists in ${where}`, columns, answers).trimEnd();
    expect(ask('~/Downloads', 100)).toBe('report.pdf exists in ~/Downloads: o overwrite · k keep both (report (1).pdf) · other key cancels');
    expect(ask('~/Downloads', 80)).toBe('report.pdf exists in ~/Downloads: o overwrite · k keep both · other key cancels');
    const cut = ask(`/mnt/${'shared/'.repeat(10)}Downloads`, 80);
    expect(cut).toMatch(/^report\.pdf exists in \/mnt\/shared.*…: o overwrite · k keep both$/);
    expect(textWidth(cut)).toBe(80);
  });
});
