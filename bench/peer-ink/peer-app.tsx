/**
 * The start-up peer: the smallest Ink app there is (one <Text>), bundled and started the way the real
 * app is (scripts/build-config.mjs's options, bench/figures/startup.ts). Our first frame over its first
 * frame is what the app costs beyond Ink itself.
 */
import { render, Text } from 'ink';

render(<Text>tempmail-tui</Text>);
// Stays up like the app until it is told to go.
setInterval(() => undefined, 1 << 30);
