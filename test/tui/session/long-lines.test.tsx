/**
 * Questions and errors longer than the width wrap (issue 14.16): they used to be cut at the edge, and
 * with them the end of the question or the advice. At 80 and 40 columns, the whole question shows with
 * its answer keys, the header and footer stay where they are, and no line is wider than the terminal.
 */
import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { sendMail } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { joined } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const SUBJECT = 'Your order of three long-sleeved shirts has shipped and arrives on Tuesday';

describe('long questions and errors', () => {
  for (const columns of [80, 40]) {
    it(`the delete question wraps whole at ${columns} columns, keys and all`, async () => {
      h = await startApp({ columns, rows: 24 });
      const address = await pickFirstDomain(h);
      await sendMail(h.svc, { to: address, subject: SUBJECT, text: 'Tracking soon.' });
      await h.screen.press('r');
      await h.screen.waitFor('Your order');
      await h.screen.press('d');
      const frame = await h.screen.waitFor((f) =>
        joined(f).includes(`Delete "${SUBJECT}"? y = yes, any other key = no`),
      );
      const lines = frame.split('\n');
      expect(lines.every((line) => textWidth(line) <= columns)).toBe(true);
      expect(lines.length).toBeLessThanOrEqual(24);
      // The header keeps the top line, the footer the bottom one.
      expect(lines[0]).toContain(address.slice(0, Math.min(address.length, columns - 20)));
      expect(lines.at(-1)).toMatch(/^y /);
      await h.screen.press('n');
      await h.screen.waitFor((f) => !joined(f).includes('Delete "'));
      expect(h.screen.frame()).toContain('Your order');
    });
  }

  it('a failure on the status line wraps whole at 40 columns, its end (the reason) kept', async () => {
    const said = 'Not copied: the terminal could not be written and no local clipboard tool';
    h = await startApp({ columns: 40, rows: 24, props: { copy: async () => said } });
    await pickFirstDomain(h);
    await h.screen.press('c');
    const frame = await h.screen.waitFor((f) => joined(f).includes(`Address: ${said}`));
    const lines = frame.split('\n');
    expect(lines.every((line) => textWidth(line) <= 40)).toBe(true);
    // Over several lines, right above the footer: the first starts it, the last ends with the reason.
    const first = lines.findIndex((line) => line.startsWith('Address: Not copied'));
    expect(first).toBeGreaterThan(0);
    expect(lines.at(-2)!.trimEnd()).toMatch(/tool$/);
    expect(lines.length - 1 - first).toBeGreaterThan(1);
    expect(lines.at(-1)).toMatch(/^j\/k /);
  });
});
