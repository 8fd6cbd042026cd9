/**
 * Two apps in one process, on two terminals that measure differently (one clusters graphemes, one does
 * not): each root renders in its own terminal's widths, whatever makes it render (here one event that
 * updates both in the same turn, outside either's widths), and Ink's text caches never hand one
 * terminal's measure to the other (src/tui/terminal/root-widths.ts, src/text/width-keyed-lru.ts).
 */
import { EventEmitter } from 'node:events';
import { Box, Text } from 'ink';
import { render } from 'ink-testing-library';
import { useEffect, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { CLUSTERED, WIDEST, withWidths } from '../../../src/text/active-widths';
import { truncateToWidth } from '../../../src/text/text-width';
import { waitFor } from '../../harness/wait';

// Six emoji of two code points each: 12 columns where the terminal clusters them, 24 at the widest.
const SUBJECT = '👍🏽'.repeat(6);
const bus = new EventEmitter();

function Rows() {
  const [ticks, setTicks] = useState(0);
  useEffect(() => {
    const tick = () => setTicks((n) => n + 1);
    bus.on('tick', tick);
    return () => void bus.off('tick', tick);
  }, []);
  return (
    <Box flexDirection="column">
      {/* Cut by the app's own measure, in render. */}
      <Text>{`own [${truncateToWidth(SUBJECT, 12, '')}]`}</Text>
      {/* Laid out and cut by Ink's (its measure and wrap caches, its output grid). */}
      <Box width={12}>
        <Text wrap="truncate-end">{SUBJECT}</Text>
      </Box>
      <Text>{`ticks ${ticks}`}</Text>
    </Box>
  );
}

const unmounts: Array<() => void> = [];
afterEach(() => {
  for (const u of unmounts.splice(0)) u();
});

describe('two apps, two terminals, one process', () => {
  it('draws each root in its own terminal widths, on its first frame and on renders started outside either', async () => {
    // The widest first, drawn before the other starts: what Ink keeps of its measures must not reach it.
    const widest = withWidths(WIDEST, () => render(<Rows />));
    unmounts.push(widest.unmount);
    await waitFor(() => widest.lastFrame()?.includes('ticks 0'), { timeoutMs: 5000, message: 'a first frame' });
    const clustered = withWidths(CLUSTERED, () => render(<Rows />));
    unmounts.push(clustered.unmount);
    const check = async (ticks: number) => {
      const drawn = (frame: () => string | undefined) =>
        waitFor(() => (frame()?.includes(`ticks ${ticks}`) ? frame() : undefined), {
          timeoutMs: 5000,
          message: `a frame after ${ticks} ticks`,
        });
      const c = await drawn(clustered.lastFrame);
      const w = await drawn(widest.lastFrame);
      // The clustering terminal gets all six in 12 columns, both by the app's cut and by Ink's.
      expect(c).toContain(`own [${SUBJECT}]`);
      expect(c.split('\n')[1], c).toBe(SUBJECT);
      // The other measures each at 4 (skin tone apart): three fit.
      expect(w).toContain(`own [${'👍🏽'.repeat(3)}]`);
      expect(w.split('\n')[1], w).not.toContain('👍🏽'.repeat(4));
    };
    await check(0);
    // One event updates both roots in the same turn, in neither's widths.
    bus.emit('tick');
    await check(1);
    bus.emit('tick');
    bus.emit('tick');
    await check(3);
  });
});
