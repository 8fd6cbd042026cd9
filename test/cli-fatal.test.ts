/**
 * The entry's last resort (src/cli.tsx): an error that no command turned into a message is still one
 * terminal-safe line on stderr and exit 1, never a stack, never an escape sequence from its text. The
 * built program runs with a preload that makes the app's TTY check throw such an error.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from './harness/cleanup';
import { spawnCli } from './harness/serve-process';

const cleanup = cleanupAfterEach();

describe('the entry catch-all', () => {
  it('prints the message of an unexpected error through safeLine, exit 1', async () => {
    const dir = await cleanup.tempDir('tempmail-fatal-');
    const preload = join(dir, 'throw-on-tty-check.mjs');
    const hostile = 'boom \\x1b]0;pwned\\x07\\x1b[31mred\\x1b[0m \\u202eevil\\u202c \\x9b2J\\nsecond line';
    await writeFile(
      preload,
      `Object.defineProperty(process.stdin, 'isTTY', { configurable: true, get() { throw new Error('${hostile}'); } });\n`,
    );
    const proc = spawnCli([], { TEMPMAIL_TUI_HOME: dir, TEMPMAIL_BASE_URL: '', NODE_OPTIONS: `--import ${preload}` });
    expect((await proc.exited).code).toBe(1);
    expect(proc.stdout()).toBe('');
    const err = proc.stderr();
    expect(err).toMatch(/^tempmail-tui: boom .*red.*evil.*second line\n$/);
    // No ESC, no C1, no bidi control, one line.
    expect(err).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
    expect(err).not.toContain('pwned');
    expect(err.split('\n')).toHaveLength(2);
  });
});
