/**
 * Keypress to frame with 10,000 messages listed, against the same inbox with 20 messages in the same run
 * (interleaved, so both see the same load). A ratio near 1 means only the visible rows are drawn.
 */
import React from 'react';
import { BigInbox, manyMessages } from '../test/tui/inbox/big-inbox';
import { renderAt, type Screen } from '../test/tui/ui';

async function keyToFrame(screen: Screen, key: string): Promise<number> {
  await screen.press(); // let listeners settle after the previous frame
  const before = screen.frames.length;
  const t0 = performance.now();
  screen.write(key);
  while (screen.frames.length === before) await new Promise((r) => setImmediate(r));
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface KeypressResult {
  bigMs: number;
  smallMs: number;
}

export async function benchKeypress(rounds = 60): Promise<KeypressResult> {
  const big = renderAt(<BigInbox messages={manyMessages(10_000)} />);
  const small = renderAt(<BigInbox messages={manyMessages(20)} />);
  try {
    await big.waitFor('Message number 10000 ');
    await small.waitFor('Message number 20 ');
    const tBig: number[] = [];
    const tSmall: number[] = [];
    for (let i = 0; i < rounds; i += 1) {
      const key = i % 2 === 0 ? 'j' : 'k';
      tBig.push(await keyToFrame(big, key));
      tSmall.push(await keyToFrame(small, key));
    }
    return { bigMs: median(tBig), smallMs: median(tSmall) };
  } finally {
    big.unmount();
    small.unmount();
  }
}

export function formatKeypress(r: KeypressResult): string {
  return (
    `keypress: 10,000 messages ${r.bigMs.toFixed(1)}ms median vs 20 messages ${r.smallMs.toFixed(1)}ms ` +
    `(${(r.bigMs / r.smallMs).toFixed(2)}x; frame budget 16ms)`
  );
}
