/**
 * Rendering bars: NO_COLOR means no colour codes at all, and a list of 10,000 messages draws only the
 * visible rows.
 */
import chalk from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigInbox, manyMessages } from './inbox/big-inbox';
import { startApp, pickFirstDomain } from './harness';
import { renderAt } from './ui';

// Colour codes (30-37, 90-97, 38;..., 40-47, 100-107, 48;...) as opposed to bold, dim or inverse.
const COLOUR_SGR = /\x1b\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7]|4[0-8]|10[0-7])(?:;[0-9;]*)?m/;

describe('NO_COLOR', () => {
  const level = chalk.level;
  beforeAll(() => {
    // Tests write to a pipe, where chalk turns colour off by itself; force it on to see the difference.
    chalk.level = 1;
  });
  afterAll(() => {
    chalk.level = level;
  });

  for (const noColor of [false, true]) {
    it(`${noColor ? 'writes no colour code at all' : 'uses colour'} with noColor=${noColor}`, async () => {
      const h = await startApp({ local: true, props: { noColor } });
      try {
        await pickFirstDomain(h);
        await h.screen.waitFor('No mail yet');
        await h.screen.press('?');
        await h.screen.waitFor('Keys: inbox');
        const coloured = h.screen.frames.some((f) => COLOUR_SGR.test(f));
        expect(coloured).toBe(!noColor);
      } finally {
        await h.close();
      }
    });
  }
});

describe('a long inbox', () => {
  it('draws only the visible rows of 10,000 messages and reaches both ends', async () => {
    // The cost of a key with 10,000 rows against 20 is measured by `npm run bench` (bench/figures/keys.ts, in the built app).
    const big = renderAt(<BigInbox messages={manyMessages(10_000)} />);
    try {
      const frame = await big.waitFor('Message number 10000 ');
      expect(frame.split('\n').length).toBeLessThanOrEqual(19);
      expect(frame).toContain('10000 messages');
      expect(frame).toContain('9982 below');
      await big.press('G');
      const last = await big.waitFor('Message number 1 ');
      expect(last).not.toContain('Message number 10000 ');
    } finally {
      big.unmount();
    }
  });
});
