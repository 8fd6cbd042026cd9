/**
 * The scripting commands say what a listing left out, against the mail.tm conformance fake over real
 * HTTP: `list` prints the rest and says it on stderr (and as `cut` in --json); `wait` keeps waiting
 * through a listing with an unreadable entry, says so once, and gets the code that arrives. The ids
 * `wait` has judged stay bounded whatever a service lists (client/wire/keep-newest.ts renewListed).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { renewListed } from '../../../src/client/wire/keep-newest';
import { waitFor } from '../../harness/wait';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';
import { makeRunner, type Runner } from '../run';

let r: Runner;
let mailtm: MailtmFake;
beforeEach(async () => {
  r = makeRunner();
  mailtm = await startMailtmFake();
});
afterEach(async () => {
  r.cleanup();
  await mailtm.close();
});

const NOTE = "1 listed message left out (no usable id in the service's answer).";

async function address(): Promise<string> {
  const made = await r.run('new', ['--provider', 'mailtm', '--base-url', mailtm.baseUrl, '--json']);
  expect(made.code).toBe(0);
  return JSON.parse(made.stdout).email as string;
}

describe('scripting on a listing that left something out', () => {
  it('list prints the rest and says what was left out (stderr; `cut` in --json)', async () => {
    const email = await address();
    mailtm.deliver(email, { subject: 'Dot dot', id: '../x' });
    const good = mailtm.deliver(email, { subject: 'Hello', text: 'hi' });
    const text = await r.run('list', []);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^${good}\\t.*\\tHello\\n$`));
    expect(text.stderr).toContain(NOTE);
    const json = JSON.parse((await r.run('list', ['--json'])).stdout);
    expect(json.messages.map((m: { id: string }) => m.id)).toEqual([good]);
    expect(json.cut).toEqual({ unreadable: 1 });
  });

  it('wait goes on through an unreadable entry, says so once, and prints the code that arrives', async () => {
    const email = await address();
    mailtm.deliver(email, { subject: 'Query', id: 'a?b=c' });
    const running = r.run('wait', ['--print', 'code', '--timeout', '20', '--interval', '0.2']);
    await waitFor(() => running.live.stderr.includes('Waiting for') || running.live.code !== -1, {
      message: 'wait to start',
    });
    // Several looks at the same listing: the note is said once.
    const looks = mailtm.log.filter((l) => l.path === '/messages').length;
    await waitFor(() => mailtm.log.filter((l) => l.path === '/messages').length >= looks + 3, {
      message: 'three more looks',
    });
    mailtm.deliver(email, { subject: 'Your code', text: 'Your verification code is 640215.' });
    const done = await running;
    expect(done).toMatchObject({ code: 0, stdout: '640215\n' });
    expect(done.stderr.split(NOTE)).toHaveLength(2);
    expect(done.stderr).not.toContain('unexpected answer');
  });

  it('the ids wait has judged stay bounded: those still listed are kept, the oldest others go', () => {
    const seen = new Set<string>();
    const page = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => String(from + i));
    // A service listing 10,000 new ids at every look, and one message that stays.
    for (let look = 0; look < 10; look++) {
      const listed = [...page(0, 1), ...page(1 + look * 10_000, 10_000)];
      renewListed(seen, listed, 25_000);
      for (const id of listed) seen.add(id);
    }
    // One look's additions past the bound at most, and the message listed all along is still judged.
    expect(seen.size).toBeLessThanOrEqual(25_000 + 10_001);
    expect(seen.has('0')).toBe(true);
    expect(seen.has('1')).toBe(false);
  });
});
