/** customNameWords (wording/custom-name-text.ts): what the picker's custom-name input says of the name typed. */
import { describe, expect, it } from 'vitest';
import { customNameWords } from '../../../src/tui/wording/custom-name-text';

const onDomain = { id: 1, domain: 'tempmail.test' };
const providerPicks = { id: 0, domain: '' };

describe('customNameWords', () => {
  it('shows the address on its domain, ticked when the name will do', () => {
    expect(customNameWords('ann', onDomain, 'TempMail.lol', { problem: null, taken: false })).toEqual({
      title: 'Custom name on tempmail.test (Enter creates it, Esc goes back):',
      at: '@tempmail.test',
      verdict: '✓ ann@tempmail.test',
    });
  });

  it('says why a name will not do, and that a name is taken', () => {
    expect(customNameWords('', onDomain, 'x', { problem: 'type a name', taken: false }).verdict).toBe('✗ type a name');
    expect(customNameWords('ann', onDomain, 'x', { problem: null, taken: true }).verdict).toBe(
      '✗ ann@tempmail.test is taken, try another',
    );
  });

  it("names the provider's domain where the provider picks it, and marks the characters it adds", () => {
    const words = customNameWords('ann', providerPicks, 'TempMail.lol', { problem: null, taken: false });
    expect(words.title).toBe('Custom name (Enter creates it, Esc goes back):');
    expect(words.verdict).toBe("✓ ann…@TempMail.lol's domain");
  });
});
