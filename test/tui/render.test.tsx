/**
 * Rendering bars that need no service: NO_COLOR means no colour codes at all, and a keypress with
 * 10,000 messages listed costs one frame, because only the visible rows are drawn.
 */
import chalk from 'chalk';
import React, { useReducer } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MessageSummary } from '../../src/core/types';
import { ThemeProvider } from '../../src/tui/common/theme';
import { InboxScreen } from '../../src/tui/inbox/inbox-screen';
import { inboxReducer, initialInboxState } from '../../src/tui/inbox/inbox-state';
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

function manyMessages(n: number): MessageSummary[] {
  const base = Date.UTC(2026, 10, 21);
  return Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    senderName: `Sender ${i + 1}`,
    senderEmail: `s${i + 1}@example.org`,
    subject: `Message number ${i + 1} with a subject long enough to be cut at eighty columns wide`,
    receivedAt: new Date(base + i * 1000),
  }));
}

function BigInbox({ messages }: { messages: MessageSummary[] }) {
  const [state, dispatch] = useReducer(inboxReducer, undefined, () =>
    inboxReducer(initialInboxState(18), { type: 'listed', messages }),
  );
  const noop = () => undefined;
  return (
    <ThemeProvider noColor>
      <InboxScreen
        state={state}
        dispatch={dispatch}
        address="a@b.test"
        columns={80}
        rows={19}
        intervalMs={5000}
        clock={Date.now}
        isActive
        onOpen={noop}
        onDelete={noop}
        onRefresh={noop}
        onNewAddress={noop}
        onCopy={noop}
        onFilter={noop}
        onHelp={noop}
        onQuit={noop}
      />
    </ThemeProvider>
  );
}

/** Milliseconds from a key to the next frame (Ink may draw on the next turn of the event loop). */
async function keyToFrame(screen: ReturnType<typeof renderAt>, key: string): Promise<number> {
  await screen.press(); // let listeners settle after the previous frame
  const before = screen.frames.length;
  const t0 = performance.now();
  screen.write(key);
  while (screen.frames.length === before) await new Promise((r) => setImmediate(r));
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('a long inbox', () => {
  it('draws only the visible rows: a key costs the same with 10,000 messages as with 20', async () => {
    const big = renderAt(<BigInbox messages={manyMessages(10_000)} />);
    const small = renderAt(<BigInbox messages={manyMessages(20)} />);
    try {
      const frame = await big.waitFor('Message number 10000 ');
      expect(frame.split('\n').length).toBeLessThanOrEqual(19);
      expect(frame).toContain('10000 messages');
      expect(frame).toContain('9982 below');
      await small.waitFor('Message number 20 ');
      const tBig: number[] = [];
      const tSmall: number[] = [];
      // Interleaved, so both see the same load on a shared machine.
      for (let i = 0; i < 30; i += 1) {
        const key = i % 2 === 0 ? 'j' : 'k';
        tBig.push(await keyToFrame(big, key));
        tSmall.push(await keyToFrame(small, key));
      }
      await big.press('G');
      await big.waitFor('Message number 1 ');
      console.log(
        `keypress to frame: 10,000 messages median ${median(tBig).toFixed(1)} ms, ` +
          `20 messages median ${median(tSmall).toFixed(1)} ms (ratio ${(median(tBig) / median(tSmall)).toFixed(2)})`,
      );
      expect(median(tBig) / median(tSmall)).toBeLessThan(2);
    } finally {
      big.unmount();
      small.unmount();
    }
  });
});
