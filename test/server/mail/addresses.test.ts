import { describe, expect, it } from 'vitest';
import {
  checkPrefix,
  extmailAlias,
  isServedDomain,
  randomDotVariant,
  randomLocalPart,
  recipientKey,
  RESERVED_PREFIXES,
  splitAddress,
} from '../../../src/server/mail/addresses';

const book = {
  domains: ['tempmail.test', 'Inbox.Test'],
  extmailAccounts: [
    { email: 'john.doe@gmail.test', dotInsensitive: true },
    { email: 'jane.roe@mail.test', dotInsensitive: false },
  ],
};

describe('checkPrefix', () => {
  it('accepts 1-64 of a-z 0-9 . _ - and lower-cases', () => {
    expect(checkPrefix('Alice.Smith_1-x')).toEqual({ ok: true, prefix: 'alice.smith_1-x' });
    expect(checkPrefix('a')).toEqual({ ok: true, prefix: 'a' });
    expect(checkPrefix('a'.repeat(64))).toEqual({ ok: true, prefix: 'a'.repeat(64) });
    expect(checkPrefix('  bob  ')).toEqual({ ok: true, prefix: 'bob' });
  });

  it.each([
    ['', /1 to 64/],
    ['a'.repeat(65), /1 to 64/],
    ['a b', /may only contain/],
    ['a+b', /may only contain/],
    ['a@b', /may only contain/],
    ['ä', /may only contain/],
    ['a\u001b[2J', /may only contain/],
    ['../x', /may only contain/],
    ['..x', /start or end with a dot/],
    ['.a', /start or end with a dot/],
    ['a.', /start or end with a dot/],
    ['a..b', /two dots/],
  ])('refuses %j', (input, message) => {
    const r = checkPrefix(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('refuses reserved names, whatever their case', () => {
    for (const name of [
      'postmaster',
      'abuse',
      'admin',
      'root',
      'hostmaster',
      'webmaster',
      'mailer-daemon',
      'noreply',
    ]) {
      expect(RESERVED_PREFIXES.has(name)).toBe(true);
      expect(checkPrefix(name.toUpperCase())).toEqual({ ok: false, message: `prefix "${name}" is reserved` });
    }
  });
});

describe('randomLocalPart', () => {
  it('reads well (word-word-digits) and passes the prefix rules', () => {
    for (let i = 0; i < 200; i++) {
      const l = randomLocalPart();
      expect(l).toMatch(/^[a-z]+-[a-z]+-\d{4}$/);
      expect(checkPrefix(l)).toEqual({ ok: true, prefix: l });
    }
  });

  it('rarely repeats (10,000 draws, at most a handful of collisions)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 10_000; i++) seen.add(randomLocalPart());
    expect(seen.size).toBeGreaterThan(9_990);
  });
});

describe('external-mail aliases', () => {
  it('makes a plus alias of a dot-sensitive account, routed back from any case', () => {
    const a = extmailAlias(book.extmailAccounts[1]!, 'quiet-otter-1234')!;
    expect(a.email).toBe('jane.roe+quiet-otter-1234@mail.test');
    expect(a.addressKey).toBe('jane.roe+quiet-otter-1234@mail.test');
    expect(recipientKey(book, 'Jane.Roe+Quiet-Otter-1234@MAIL.TEST')).toBe(a.addressKey);
    // Dots matter for this provider.
    expect(recipientKey(book, 'janeroe+quiet-otter-1234@mail.test')).toBeNull();
  });

  it('makes dot variants of a dot-insensitive account that all route to one key', () => {
    const keys = new Set<string>();
    const emails = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const a = extmailAlias(book.extmailAccounts[0]!, 'tag')!;
      expect(a.email).toMatch(/^j(\.?o)(\.?h)(\.?n)(\.?d)(\.?o)(\.?e)\+tag@gmail\.test$/);
      expect(a.email.split('+')[0]).toContain('.');
      emails.add(a.email);
      keys.add(a.addressKey);
      expect(recipientKey(book, a.email)).toBe(a.addressKey);
    }
    expect(keys).toEqual(new Set(['johndoe+tag@gmail.test']));
    expect(emails.size).toBeGreaterThan(5);
    expect(recipientKey(book, 'J.O.H.N.D.O.E+TAG@Gmail.Test')).toBe('johndoe+tag@gmail.test');
  });

  it('randomDotVariant never puts a dot at an edge or two in a row', () => {
    for (let i = 0; i < 200; i++) {
      const v = randomDotVariant('john.doe');
      expect(v.replace(/\./g, '')).toBe('johndoe');
      expect(v).not.toMatch(/^\.|\.$|\.\./);
    }
    expect(randomDotVariant('x')).toBe('x');
  });
});

describe('recipientKey', () => {
  it('routes our domains case-insensitively and ignores a +suffix', () => {
    expect(recipientKey(book, 'Quiet-Otter-1@TEMPMAIL.test')).toBe('quiet-otter-1@tempmail.test');
    expect(recipientKey(book, 'bob@inbox.test')).toBe('bob@inbox.test');
    expect(recipientKey(book, 'bob+news@tempmail.test')).toBe('bob@tempmail.test');
    expect(recipientKey(book, '<bob@tempmail.test>')).toBe('bob@tempmail.test');
    expect(recipientKey(book, 'bob@tempmail.test.')).toBe('bob@tempmail.test');
  });

  it('refuses what cannot be ours', () => {
    expect(recipientKey(book, 'bob@elsewhere.test')).toBeNull();
    expect(recipientKey(book, 'john.doe@gmail.test')).toBeNull(); // the bare account is nobody's session
    expect(recipientKey(book, 'john.doe+@gmail.test')).toBeNull();
    expect(recipientKey(book, 'other+tag@gmail.test')).toBeNull();
    expect(recipientKey(book, '+x@tempmail.test')).toBeNull();
    expect(recipientKey(book, 'no-at-sign')).toBeNull();
    expect(recipientKey(book, '@tempmail.test')).toBeNull();
  });

  it('splitAddress splits at the last @', () => {
    expect(splitAddress('"a@b"@Example.TEST')).toEqual({ local: '"a@b"', domain: 'example.test' });
  });

  it('knows which domains it serves', () => {
    expect(isServedDomain(book, 'INBOX.test')).toBe(true);
    expect(isServedDomain(book, 'gmail.test')).toBe(true);
    expect(isServedDomain(book, 'example.test')).toBe(false);
  });
});
