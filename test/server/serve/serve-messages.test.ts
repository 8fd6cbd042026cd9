/**
 * What `serve` says when it refuses to start, as a user sees it (the built program in a child process):
 * a taken SMTP port is one line (no "connection error" before it), a config file's mistake ends with the
 * file's path (no --help hint: the fix is in the file), a flag's mistake keeps the hint, and --help points
 * at documentation that exists.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { spawnCli, stopServe, type ServeProcess } from '../../harness/serve-process';

const cleanup = cleanupAfterEach();
const HINT = "Try 'tempmail-tui serve --help'.";

function run(args: string[]): ServeProcess {
  return cleanup.defer(spawnCli(['serve', ...args]), (p) => stopServe(p, 'SIGKILL'));
}

/** A loopback port held by a plain TCP listener for the rest of the test. */
async function takenPort(): Promise<number> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
  cleanup.defer(server, (s) => new Promise((resolve) => s.close(resolve)));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

describe('serve refusing to start', () => {
  it('says only that a taken SMTP port is in use (exit 1, no connection error line)', async () => {
    const port = await takenPort();
    const dir = await cleanup.tempDir('tempmail-serve-msg-');
    const proc = run(['--data-dir', dir, '--http-port', '0', '--smtp-port', String(port)]);
    expect((await proc.exited).code).toBe(1);
    expect(proc.stderr()).toBe(
      `tempmail-tui serve: SMTP port ${port} on 127.0.0.1 is already in use (try another port, or 0 for any free one)\n`,
    );
    expect(proc.stdout()).toBe('');
  });

  it('ends a config file mistake with the file path and no --help hint (exit 2)', async () => {
    const dir = await cleanup.tempDir('tempmail-serve-msg-');
    const file = join(dir, 'serve.json');
    const cases: [unknown, string][] = [
      [{ httpPort: 'abc' }, '--config httpPort: expected a whole number from 0 to 65535, got "abc"'],
      [{ domains: ['not a domain'] }, '--config domains: "not a domain" is not a domain name'],
      [{ domians: ['x.test'] }, '--config: unknown key "domians" (did you mean "domains"?)'],
      [{ colour: 'blue' }, '--config: unknown key "colour" (the keys: docs/server/README.md, "Settings")'],
      [[1, 2], '--config: the file must hold a JSON object'],
    ];
    for (const [content, message] of cases) {
      await writeFile(file, JSON.stringify(content));
      const proc = run(['--config', file]);
      expect((await proc.exited).code, message).toBe(2);
      const err = proc.stderr();
      expect(err.startsWith(`tempmail-tui serve: ${message}`), err).toBe(true);
      expect(err.endsWith(` (in ${file})\n`), err).toBe(true);
      expect(err).not.toContain('--help');
      expect(err.split('\n')).toHaveLength(2); // one line
    }
    await writeFile(file, '{"domains": [');
    const broken = run(['--config', file]);
    expect((await broken.exited).code).toBe(2);
    expect(broken.stderr()).toMatch(
      new RegExp(`^tempmail-tui serve: --config: the file is not valid JSON \\(.+\\) \\(in ${file}\\)\\n$`),
    );
    const missing = run(['--config', join(dir, 'nope.json')]);
    expect((await missing.exited).code).toBe(2);
    expect(missing.stderr()).toBe(
      `tempmail-tui serve: --config: cannot read the file (ENOENT) (in ${join(dir, 'nope.json')})\n`,
    );
  });

  it('keeps the --help hint for a flag mistake, also next to a good config file', async () => {
    const dir = await cleanup.tempDir('tempmail-serve-msg-');
    const file = join(dir, 'serve.json');
    await writeFile(file, JSON.stringify({ domains: ['file.test'] }));
    const proc = run(['--config', file, '--http-port', 'abc']);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toBe(
      `tempmail-tui serve: --http-port: expected a whole number from 0 to 65535, got "abc"\n${HINT}\n`,
    );
  });

  it('--help points at the docs that describe the API, and at no file the repository does not have', async () => {
    const proc = run(['--help']);
    expect((await proc.exited).code).toBe(0);
    // Wrapped to the width: a phrase may span lines.
    expect(proc.stdout().replace(/\s+/g, ' ')).toContain('the HTTP API described in docs/server/http-api.md');
    const named = proc.stdout().match(/[\w./-]+\.md\b/g) ?? [];
    expect(named).toEqual([
      'docs/server/http-api.md',
      'docs/server/imap.md',
      'docs/server/operations.md',
      'docs/server/ssh.md',
      'docs/server/operations.md',
    ]);
    for (const path of named)
      expect(existsSync(fileURLToPath(new URL(`../../../${path}`, import.meta.url))), path).toBe(true);
  });
});
