/**
 * A key whose handler throws (src/tui/widgets/key-stdin.ts): the keys are handed to Ink on a turn of
 * their own, where nothing of the app is on the stack to catch what a handler throws, so the error went
 * to the process (`serve`: every SSH session at once). Given `onError`, the stdin hands it there instead
 * (remote-app.tsx then ends that session alone), and the process never sees it.
 */
import { PassThrough } from 'node:stream';
import { render, Text, useInput } from 'ink';
import { describe, expect, it } from 'vitest';
import { keyByKey } from '../../../src/tui/widgets/key-stdin';
import { waitFor } from '../../harness/wait';

function Breaks() {
  useInput((input) => {
    if (input === 'x') throw new Error('a key handler broke');
  });
  return <Text>ready</Text>;
}

describe('a key handler that throws', () => {
  it('reaches onError, not the process', async () => {
    const real = Object.assign(new PassThrough(), {
      isTTY: true,
      setRawMode: () => real,
      ref: () => real,
      unref: () => real,
    });
    real.setEncoding('utf8');
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
    stdout.resume();
    const errors: Error[] = [];
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    const stdin = keyByKey(real as unknown as NodeJS.ReadStream, undefined, (error) => errors.push(error));
    const app = render(<Breaks />, {
      stdin,
      stdout: stdout as unknown as NodeJS.WriteStream,
      patchConsole: false,
      interactive: true,
    });
    try {
      real.write('x');
      await waitFor(() => errors.length > 0 || uncaught.length > 0 || undefined, {
        timeoutMs: 5000,
        message: 'the error from the key handler',
      });
      expect(uncaught).toEqual([]);
      expect(errors.map((e) => e.message)).toEqual(['a key handler broke']);
    } finally {
      app.unmount();
      process.off('uncaughtException', onUncaught);
    }
  });
});
