/**
 * `read` and `wait` on a message nested 100,000 elements deep, through the real service: they exited 1
 * with "unexpected error" when html-to-text's recursion overflowed the stack (issue 14.1).
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { waitFor } from '../harness/wait';
import { scriptFixture } from './run';

const fx = scriptFixture();

const DEPTH = 100_000;
const deepHtml = (inner: string) =>
  '<div><table><tr><td><span>'.repeat(DEPTH / 5) + inner + '</span></td></tr></table></div>'.repeat(DEPTH / 5);

describe('deeply nested HTML', () => {
  it('read prints its text and wait finds its code', async () => {
    const created = await fx.r.run('new', ['--base-url', fx.svc.baseUrl, '-q']);
    expect(created.code).toBe(0);
    const email = created.stdout.trim();
    const waiting = fx.r.run('wait', ['--interval', '0.2', '--print', 'code', '--timeout', '25']);
    await waitFor(() => waiting.live.stderr.includes('Waiting for'), { message: 'wait to start' });
    await sendMail(fx.svc, {
      to: email,
      subject: 'Verify your address',
      html: deepHtml('<p>Your verification code is 482913.</p><p>The innermost words</p>'),
    });
    const waited = await waiting;
    expect(waited.stderr).not.toContain('unexpected error');
    expect(waited.code).toBe(0);
    expect(waited.stdout).toBe('482913\n');

    const listed = await fx.r.run('list', ['-q']);
    const id = listed.stdout.split('\t')[0]!;
    const read = await fx.r.run('read', [id]);
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('Your verification code is 482913.');
    expect(read.stdout).toContain('The innermost words');
  });
});
