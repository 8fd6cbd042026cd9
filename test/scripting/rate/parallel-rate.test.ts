/**
 * Issue 24, point 1, through the built program: every process of the user keeps mail.tm's documented
 * 8 requests a second together (a pacing file in the state directory), and a 429 that comes anyway is
 * waited out (Retry-After, 10 s a wait) and asked again, saying so on stderr. Before: the fifth `new` in
 * a row failed with "Too many requests", and 10 of 12 parallel `list`s did.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { neutralEnv } from '../../e2e/flow';
import { CLI, spawnCli } from '../../harness/serve-process';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
let home: string;
let fake: MailtmFake;

beforeAll(async () => {
  if (!existsSync(CLI)) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'ignore' });
  home = mkdtempSync(join(tmpdir(), 'tempmail-rate-'));
  fake = await startMailtmFake({ ratePerSecond: 8 });
}, 120_000);
afterAll(async () => {
  rmSync(home, { recursive: true, force: true });
  await fake?.close();
});

async function cli(args: string[]) {
  const proc = spawnCli([...args, '--provider', 'mailtm', '--base-url', fake.baseUrl], {
    ...neutralEnv(),
    TEMPMAIL_TUI_HOME: home,
  });
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

describe('mail.tm rate limit across processes', () => {
  it('five `new` in a row, then twelve `list --json` at once: none fails, none goes over 8 a second', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await cli(['new', '-q']);
      expect(res, `new #${i + 1}`).toMatchObject({ code: 0, stderr: '' });
      made.push(res.stdout.trim());
    }
    fake.deliver(made[4]!, { subject: 'Hello', text: 'Your code is 123456' });
    const lists = await Promise.all(Array.from({ length: 12 }, () => cli(['list', '--json'])));
    for (const [i, res] of lists.entries()) {
      expect(res.code, `list #${i + 1}: ${res.stderr}`).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ address: made[4], messages: [{ subject: 'Hello' }] });
    }
    // Counted by the fake as requests arrived: never more than the documented 8 in any one second.
    const arrivals = fake.log.map((l) => `${l.at % 100_000} ${l.method} ${l.path} ${l.status}`).join('\n');
    expect(fake.busiestSecond(), arrivals).toBeLessThanOrEqual(8);
    expect(fake.limited()).toBe(0);
  }, 60_000);

  it('a 429 is waited out (its Retry-After) and asked again, saying so on stderr', async () => {
    fake.failNext(429, 2, 1, 'messages');
    const res = await cli(['list']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(
      /^mail\.tm is limiting requests: waiting 1 s, then asking again\nmail\.tm is limiting requests: waiting 1 s, then asking again\n/,
    );
  }, 30_000);

  it('a 429 asking for longer than 10 s is not waited on: the error says when to come back', async () => {
    fake.failNext(429, 1, 60, 'messages');
    const res = await cli(['list']);
    expect(res).toMatchObject({ code: 1, stdout: '' });
    expect(res.stderr).toBe('tempmail-tui list: Too many requests to the service; try again in 60 s\n');
  }, 30_000);
});
