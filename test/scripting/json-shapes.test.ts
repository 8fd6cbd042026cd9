/**
 * The --json shapes are documented in docs/scripting.md as stable: this pins their keys exactly, so a
 * key renamed or dropped fails here before a user's script finds out.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { makeRunner, type Runner } from './run';

let svc: TestService;
let r: Runner;
let base: string[];
beforeAll(async () => {
  svc = await startTestService({
    extmailAccounts: [{ email: 'owner@extmail.test', dotInsensitive: false }],
    createPerMinute: 1000,
  });
  r = makeRunner();
  base = ['--base-url', svc.baseUrl];
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await svc.close();
});

const keys = (o: object) => Object.keys(o).sort();
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

it('new, domains, list and read print the documented keys, times ISO in UTC', async () => {
  const made = JSON.parse((await r.run('new', [...base, '--json', '-q'])).stdout);
  expect(keys(made)).toEqual(['baseUrl', 'createdAt', 'email', 'expiresAt', 'provider']);
  expect(made.provider).toBe('tempmail');
  expect(made.expiresAt).toMatch(ISO_UTC);

  const domains = JSON.parse((await r.run('domains', [...base, '--json'])).stdout);
  expect(keys(domains)).toEqual(['domains', 'extmailAccounts']);
  expect(keys(domains.domains[0])).toEqual(['domain', 'id']);
  expect(keys(domains.extmailAccounts[0])).toEqual(['email', 'id']);

  await sendMail(svc, {
    from: 'Acme <accounts@acme.test>',
    to: made.email,
    cc: 'other@example.org',
    subject: 'Your Acme code',
    html: '<p>Your code is 482913.</p><p><a href="https://acme.test/verify?t=1">Verify</a></p>',
    attachments: [{ filename: 'a.txt', content: 'a\n' }],
  });
  const listed = JSON.parse((await r.run('list', [...base, '--json'])).stdout);
  expect(keys(listed)).toEqual(['address', 'messages']);
  expect(keys(listed.messages[0])).toEqual(['id', 'receivedAt', 'senderEmail', 'senderName', 'subject']);
  expect(listed.messages[0].receivedAt).toMatch(ISO_UTC);

  const read = JSON.parse((await r.run('read', [...base, String(listed.messages[0].id), '--json'])).stdout);
  expect(keys(read)).toEqual(
    [
      'attachments',
      'bodyHtml',
      'bodyText',
      'cc',
      'code',
      'id',
      'link',
      'links',
      'receivedAt',
      'senderEmail',
      'senderName',
      'subject',
      'text',
      'to',
    ].sort(),
  );
  expect(keys(read.attachments[0])).toEqual(['contentType', 'filename', 'id', 'size']);
  expect(keys(read.links[0])).toEqual(['n', 'text', 'url']);
  expect(read).toMatchObject({
    code: '482913',
    link: 'https://acme.test/verify?t=1',
    cc: ['other@example.org'],
    to: [made.email],
  });
});
