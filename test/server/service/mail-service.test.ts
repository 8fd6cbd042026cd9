/** Sessions of the mail service: creation rules, tokens, rate limit and expiry (injected clock, no sleeping). */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatWireTime } from '../../../src/platform/time';
import { hashToken } from '../../../src/server/service/mail-service';
import { ServiceError, type ServiceErrorCode } from '../../../src/server/service/service-types';
import { compose, serviceMaker, T0 } from '../service-fixture';

const svc = serviceMaker();

/** Expects `p` to reject with a ServiceError of `code` (and its HTTP status). */
async function rejectsWith(p: Promise<unknown>, code: ServiceErrorCode, message?: RegExp): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(ServiceError);
  const e = err as ServiceError;
  expect(e.code).toBe(code);
  if (message) expect(e.message).toMatch(message);
  return e;
}

const client = { clientAddress: '127.0.0.1' };

describe('listDomains', () => {
  it('numbers domains and external-mail accounts from 1', async () => {
    const { service } = await svc();
    expect(service.listDomains()).toEqual({
      domains: [
        { id: 1, domain: 'tempmail.test' },
        { id: 2, domain: 'inbox.test' },
      ],
      extmailAccounts: [
        { id: 1, email: 'john.doe@gmail.test' },
        { id: 2, email: 'jane@mail.test' },
      ],
    });
  });
});

describe('createSession', () => {
  it('gives a random, readable address on the first domain, a 256-bit token and the lifetime', async () => {
    const { service } = await svc();
    const s = await service.createSession(client);
    expect(s.email).toMatch(/^[a-z]+-[a-z]+-\d{4}@tempmail\.test$/);
    expect(s.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s.expiresAt.getTime()).toBe(T0 + 600_000);
    const other = await service.createSession(client);
    expect(other.token).not.toBe(s.token);
    expect(other.email).not.toBe(s.email);
  });

  it('hashes a token as sha256 of its UTF-8 bytes, hex, so hashes stored before stay valid', () => {
    // The FIPS 180-2 vector, then a token that is not ASCII (a client may send anything).
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const odd = 'tök\u00e9n-\u{1F600}';
    expect(hashToken(odd)).toBe(createHash('sha256').update(Buffer.from(odd, 'utf8')).digest('hex'));
  });

  it('stores the token only as its sha256 hash, nowhere on disk in clear', async () => {
    const f = await svc({}, true);
    const s = await f.service.createSession(client);
    const [stored] = await f.store.listSessions();
    expect(stored!.tokenHash).toBe(hashToken(s.token));
    expect(JSON.stringify(stored)).not.toContain(s.token);
    const files = await readdir(join(f.dataDir, 'sessions'));
    for (const name of files) expect(await readFile(join(f.dataDir, 'sessions', name), 'utf8')).not.toContain(s.token);
  });

  it('takes a custom prefix lower-cased, on the chosen domain', async () => {
    const { service } = await svc();
    expect((await service.createSession({ ...client, prefix: 'Alice.B_1-x', domainId: 2 })).email).toBe(
      'alice.b_1-x@inbox.test',
    );
    expect((await service.createSession({ ...client, prefix: '   ' })).email).toMatch(/@tempmail\.test$/);
  });

  it('refuses bad and reserved prefixes with a clear 400', async () => {
    const { service } = await svc();
    const e = await rejectsWith(service.createSession({ ...client, prefix: 'a..b' }), 'bad_request', /two dots/);
    expect(e.status).toBe(400);
    await rejectsWith(service.createSession({ ...client, prefix: 'a b' }), 'bad_request', /may only contain/);
    await rejectsWith(service.createSession({ ...client, prefix: 'x'.repeat(65) }), 'bad_request', /1 to 64/);
    await rejectsWith(service.createSession({ ...client, prefix: 'Postmaster' }), 'bad_request', /reserved/);
  });

  it('answers 409 for a prefix held by a live session, on that domain only', async () => {
    const { service } = await svc();
    await service.createSession({ ...client, prefix: 'bob' });
    const e = await rejectsWith(
      service.createSession({ ...client, prefix: 'BOB' }),
      'prefix_taken',
      /bob@tempmail\.test/,
    );
    expect(e.status).toBe(409);
    expect((await service.createSession({ ...client, prefix: 'bob', domainId: 2 })).email).toBe('bob@inbox.test');
  });

  it('lets exactly one of two concurrent requests for a prefix win', async () => {
    const { service } = await svc();
    const results = await Promise.allSettled([1, 2, 3].map(() => service.createSession({ ...client, prefix: 'race' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as ServiceError).code).toBe('prefix_taken');
  });

  it('frees the prefix of an expired session, whose token then stops working', async () => {
    const f = await svc();
    const old = await f.service.createSession({ ...client, prefix: 'carol' });
    f.advance(600_000);
    const fresh = await f.service.createSession({ ...client, prefix: 'carol' });
    expect(fresh.email).toBe('carol@tempmail.test');
    await rejectsWith(f.service.checkMail(old.token), 'invalid_token');
    expect(await f.service.checkMail(fresh.token)).toEqual([]);
  });

  it.each([0, 3, -1, 1.5, Number.NaN])('refuses domain_id %s', async (domainId) => {
    const { service } = await svc();
    await rejectsWith(
      service.createSession({ ...client, domainId }),
      'bad_request',
      /domain_id .* not an offered domain/,
    );
  });

  it('picks external-mail accounts round robin for use_extmail alone or with extmail_auto', async () => {
    const { service } = await svc();
    const a = await service.createSession({ ...client, useExtmail: true });
    const b = await service.createSession({ ...client, useExtmail: true, extmailAuto: true });
    const c = await service.createSession({ ...client, extmailAuto: true });
    expect(a.email).toMatch(/^j(\.?o)(\.?h)(\.?n)(\.?d)(\.?o)(\.?e)\+[a-z]+-[a-z]+-\d{4}@gmail\.test$/);
    expect(b.email).toMatch(/^jane\+[a-z]+-[a-z]+-\d{4}@mail\.test$/);
    expect(c.email).toMatch(/@gmail\.test$/);
  });

  it('uses the account named by extmail_id, with the prefix as the tag', async () => {
    const { service } = await svc();
    expect((await service.createSession({ ...client, useExtmail: true, extmailId: 2, prefix: 'Shop' })).email).toBe(
      'jane+shop@mail.test',
    );
    await rejectsWith(
      service.createSession({ ...client, useExtmail: true, extmailId: 2, prefix: 'shop' }),
      'prefix_taken',
    );
    await rejectsWith(
      service.createSession({ ...client, useExtmail: true, extmailId: 3 }),
      'bad_request',
      /extmail_id 3/,
    );
    await rejectsWith(service.createSession({ ...client, extmailId: 0 }), 'bad_request', /extmail_id 0/);
  });

  it('says so when no external-mail account is configured', async () => {
    const { service } = await svc({ extmailAccounts: [] });
    await rejectsWith(
      service.createSession({ ...client, useExtmail: true }),
      'bad_request',
      /no external mail accounts/,
    );
  });
});

describe('create-session rate limit', () => {
  it('allows createPerMinute per client in any 60 s, answers 429 with Retry-After, per client', async () => {
    const f = await svc({ createPerMinute: 3 });
    for (let i = 0; i < 3; i++) {
      await f.service.createSession(client);
      f.advance(10_000);
    }
    const e = await rejectsWith(f.service.createSession(client), 'rate_limited', /try again in 30 s/);
    expect(e.status).toBe(429);
    expect(e.retryAfterSeconds).toBe(30);
    await f.service.createSession({ clientAddress: '::1' });
    f.advance(29_000);
    expect((await rejectsWith(f.service.createSession(client), 'rate_limited')).retryAfterSeconds).toBe(1);
    f.advance(1_000);
    await f.service.createSession(client); // the first of the three is out of the window now
    await rejectsWith(f.service.createSession(client), 'rate_limited');
  });

  it('counts refused bad requests too, so probing is limited', async () => {
    const f = await svc({ createPerMinute: 2 });
    await rejectsWith(f.service.createSession({ ...client, prefix: 'root' }), 'bad_request');
    await rejectsWith(f.service.createSession({ ...client, prefix: 'root' }), 'bad_request');
    await rejectsWith(f.service.createSession({ ...client, prefix: 'fine' }), 'rate_limited');
  });
});

describe('tokens and expiry', () => {
  it('answers 401 for a missing or unknown token on every token operation', async () => {
    const { service } = await svc();
    for (const token of ['', 'not-a-token']) {
      for (const op of [
        service.checkMail(token),
        service.readMail(token, 1),
        service.deleteMail(token, 1),
        service.rawMessage(token, 1),
        service.attachment(token, 1, 1),
      ]) {
        expect((await rejectsWith(op, 'invalid_token')).status).toBe(401);
      }
    }
  });

  it('answers 410 once the session expired, and 401 once it is purged with its messages', async () => {
    const f = await svc();
    const s = await f.service.createSession({ ...client, prefix: 'dave' });
    const keep = await f.service.createSession(client);
    await f.service.deliver({ raw: await compose({ to: s.email, subject: 'x', text: 'y' }), recipients: [s.email] });
    f.advance(599_999);
    expect(await f.service.checkMail(s.token)).toHaveLength(1);
    expect(await f.service.checkRecipient(s.email)).toBe('ok');
    f.advance(1);
    const e = await rejectsWith(f.service.checkMail(s.token), 'session_expired', /expired at 2026-11-21 10:10:00 UTC/);
    expect(e.status).toBe(410);
    expect(e.message).not.toContain(s.token);
    for (const op of [
      f.service.readMail(s.token, 1),
      f.service.deleteMail(s.token, 1),
      f.service.rawMessage(s.token, 1),
    ]) {
      await rejectsWith(op, 'session_expired');
    }
    expect(await f.service.checkRecipient(s.email)).toBe('expired');
    expect((await f.service.health()).sessions).toBe(2);
    expect(await f.service.purgeExpired()).toBe(2);
    expect((await f.service.health()).sessions).toBe(0);
    await rejectsWith(f.service.checkMail(s.token), 'invalid_token');
    await rejectsWith(f.service.checkMail(keep.token), 'invalid_token');
    expect(await f.service.checkRecipient(s.email)).toBe('unknown');
    expect(await f.store.listMessages((await f.store.listSessions())[0]?.id ?? 'none')).toEqual([]);
    expect(await f.service.purgeExpired()).toBe(0);
  });

  it('keeps live sessions at a purge', async () => {
    const f = await svc();
    const early = await f.service.createSession(client);
    f.advance(300_000);
    const late = await f.service.createSession(client);
    f.advance(300_000);
    expect(await f.service.purgeExpired()).toBe(1);
    await rejectsWith(f.service.checkMail(early.token), 'invalid_token');
    expect(await f.service.checkMail(late.token)).toEqual([]);
    expect(formatWireTime(late.expiresAt)).toBe('2026-11-21 10:15:00');
  });
});
