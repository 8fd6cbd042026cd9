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

describe('a long inbox', () => {
  it('draws only the visible rows of 10,000 and answers a key within a frame', async () => {
    const screen = renderAt(<BigInbox messages={manyMessages(10_000)} />);
    try {
      let frame = await screen.waitFor('Message number 10000 ');
      expect(frame.split('\n').length).toBeLessThanOrEqual(19);
      expect(frame).toContain('10000 messages');
      expect(frame).toContain('9982 below');
      const times: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const [key, expected] = i % 2 === 0 ? ['G', 'Message number 1 '] : ['g', 'Message number 10000 '];
        const before = screen.frames.length;
        const t0 = performance.now();
        screen.type(key);
        // Ink handles the key and draws synchronously in legacy mode; wait (polling on the event loop,
        // not on a timer) for the frame in case a render is deferred.
        while (screen.frames.length === before) await new Promise((r) => setImmediate(r));
        times.push(performance.now() - t0);
        frame = await screen.waitFor(expected);
        // Let Ink's key listener settle before the next key (it re-attaches after a render).
        await screen.press();
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)]!;
      console.log(`keypress to frame with 10,000 messages: median ${median.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
      // One frame is 16 ms; leave room for a machine shared with other test runs.
      expect(median).toBeLessThan(32);
    } finally {
      screen.unmount();
    }
  });
});
