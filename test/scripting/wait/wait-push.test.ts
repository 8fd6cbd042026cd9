/**
 * `wait` hears of new mail through the service's event stream (GET /events) where the service offers
 * it: with a poll interval of ten minutes it still prints the code as soon as the mail is stored, against
 * the real reference service over real HTTP and SMTP, and never puts the token in a URL.
 */
import { describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { scriptFixture } from '../run';

const fx = scriptFixture();

describe('wait with a service that streams news of mail', () => {
  it('prints the code as soon as the mail is stored, though it would look again only in ten minutes', async () => {
    const created = await fx.r.run('new', ['--base-url', fx.svc.baseUrl, '-q']);
    expect(created.code).toBe(0);
    const email = created.stdout.trim();
    const running = fx.r.run('wait', ['--print', 'code', '--interval', '600', '--timeout', '25']);
    await waitFor(() => running.live.stderr.includes('Waiting for'), { message: 'wait to start' });
    await waitFor(() => fx.svc.logs.some((l) => / \/events 200 /.test(l)), { message: 'the event stream to open' });
    await sendMail(fx.svc, {
      from: 'accounts@acme.test',
      to: email,
      subject: 'Your Acme code',
      text: 'Your verification code is 582017.',
    });
    const res = await running;
    expect(res.code).toBe(0);
    expect(res.stdout).toBe('582017\n');
    // No token in any URL the service saw: the header carried it (the access log names no token=).
    expect(fx.svc.logs.filter((l) => /token=/.test(l))).toEqual([]);
  });
});
