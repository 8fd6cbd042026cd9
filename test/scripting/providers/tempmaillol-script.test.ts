/**
 * The fourth family from a script, against the TempMail.lol fake: `new --provider tempmaillol` (with a
 * name, TempMail.lol picking the domain), `wait` for the code, `read`, `domains` saying it picks the
 * domain, and its captcha refusal in words with "try another provider".
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../../harness/wait';
import { startTempmaillolFake, type TempmaillolFake } from '../../providers/tempmaillol-fake';
import { makeRunner, type Runner } from '../run';

let fake: TempmaillolFake;
let r: Runner;
beforeAll(async () => {
  fake = await startTempmaillolFake();
  r = makeRunner();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await fake.close();
});

it('new, wait, read and domains on TempMail.lol', async () => {
  const on = ['--provider', 'tempmaillol', '--base-url', fake.baseUrl];
  const made = await r.run('new', [...on, '--prefix', 'reader']);
  expect(made.code, made.stderr).toBe(0);
  const address = made.stdout.trim();
  expect(address).toMatch(/^reader[0-9a-f]{4}@(tmlol|lolbox)\.test$/);
  expect(made.stderr).toMatch(/^Saved reader[0-9a-f]{4}@\S+ on TempMail\.lol; expires in (59:\d\d|1:00:00)\./);
  const looks = fake.log.filter((l) => l.path === '/v2/inbox').length;
  const waiting = r.run('wait', ['--print', 'code', '--timeout', '20', '--interval', '1']);
  // The mail comes after wait's first look, so it is new to it.
  await waitFor(() => fake.log.filter((l) => l.path === '/v2/inbox').length > looks, { message: "wait's first look" });
  fake.deliver(address, {
    from: 'Acme <no-reply@acme.example>',
    subject: 'Your code',
    body: 'Your verification code is 482913.',
  });
  const waited = await waiting;
  expect(waited, waited.stderr).toMatchObject({ code: 0, stdout: '482913\n' });
  const listed = await r.run('list', ['--json']);
  const id = (JSON.parse(listed.stdout) as { messages: { id: string }[] }).messages[0]!.id;
  const read = await r.run('read', [id]);
  expect(read.code, read.stderr).toBe(0);
  expect(read.stdout).toContain('Your verification code is 482913.');
  const domains = await r.run('domains', on);
  expect(domains).toMatchObject({
    code: 0,
    stdout: '',
    stderr: 'TempMail.lol lists no domains: it picks one for each new address\n',
  });
});

it('a captcha refusal is said in words, with another provider to try', async () => {
  const blocked = await startTempmaillolFake({ captcha: true });
  try {
    const res = await r.run('new', ['--provider', 'tempmaillol', '--base-url', blocked.baseUrl]);
    expect(res).toMatchObject({ code: 1, stdout: '' });
    expect(res.stderr).toBe(
      'tempmail-tui new: TempMail.lol wants a captcha solved from this network (it asks some countries and networks), which a terminal cannot do: try another provider\n',
    );
  } finally {
    await blocked.close();
  }
});
