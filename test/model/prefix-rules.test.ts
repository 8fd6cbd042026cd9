import { describe, expect, it } from 'vitest';
import { brokenPrefixRule, RESERVED_PREFIXES } from '../../src/model/prefix-rules';
import { checkPrefix } from '../../src/server/mail/addresses';
import { prefixProblem } from '../../src/tui/picker/prefix-feedback';

describe('prefix rules, one table for the picker and the service', () => {
  const samples = [
    'a',
    'quiet-otter',
    'first.last',
    'x_y-z.9',
    'a'.repeat(64),
    'a'.repeat(65),
    'Upper',
    'sp ace',
    'ümlaut',
    '.lead',
    'trail.',
    'two..dots',
    'a+b',
    ...RESERVED_PREFIXES,
    // Reserved names in other spellings, and compatibility forms that NFKC folds to ASCII.
    'mailer_daemon',
    'mailer.daemon',
    'post.master',
    'post-master',
    'no_reply',
    'r.o.o.t',
    'web_master',
    'ａｄｍｉｎ',
    'ｑｕｉｅｔ',
    'mar\u212Aeting',
    '\u212Aiwi',
    'ﬁnch',
    'root\u00AD',
    'a\u2024b',
  ];

  it('refuses reserved names however they are spelt: case, NFKC compatibility forms, dots, "-" and "_"', () => {
    for (const name of [
      'mailer_daemon',
      'mailer.daemon',
      'Mailer-Daemon',
      'post.master',
      'post-master',
      'post_master',
      'no_reply',
      'no.reply',
      'r.o.o.t',
      'web_master',
      'host-master',
      'ssl_admin',
      'ssladmin',
      'sys-admin',
      'ａｄｍｉｎ',
      'ＲＯＯＴ',
      'ｐｏｓｔ＿ｍａｓｔｅｒ',
      'mar\u212Aeting',
      'MAR\u212AETING',
      'ᵃdmin',
      'ssl\uFE63admin',
    ]) {
      expect(brokenPrefixRule(name), name).toBe('reserved');
      const service = checkPrefix(name);
      expect(service.ok, name).toBe(false);
      expect(prefixProblem(name.toLowerCase()), name).toMatch(/is reserved$/);
    }
  });

  it('keeps a compatibility form of an ordinary name as its ASCII form, and refuses what folds to nothing usable', () => {
    expect(checkPrefix('ｑｕｉｅｔ-ｏｔｔｅｒ')).toEqual({ ok: true, prefix: 'quiet-otter' });
    expect(checkPrefix('\u212Aiwi')).toEqual({ ok: true, prefix: 'kiwi' });
    expect(checkPrefix('ﬁnch')).toEqual({ ok: true, prefix: 'finch' });
    expect(brokenPrefixRule('ümlaut')).toBe('chars');
    expect(brokenPrefixRule('root\u00AD')).toBe('chars');
    // U+2024 ONE DOT LEADER folds to "." : "a․․b" is a double dot, not a way around the rule.
    expect(brokenPrefixRule('a\u2024\u2024b')).toBe('double-dot');
    // Names that merely contain a reserved word stay free.
    for (const free of ['rooted', 'admin2', 'mailbox', 'postmasters', 'my-support-desk'])
      expect(brokenPrefixRule(free), free).toBeNull();
  });

  it('names the broken rule', () => {
    expect(brokenPrefixRule('quiet-otter')).toBeNull();
    expect(brokenPrefixRule('')).toBe('length');
    expect(brokenPrefixRule('a'.repeat(65))).toBe('length');
    expect(brokenPrefixRule('a+b')).toBe('chars');
    expect(brokenPrefixRule('.lead')).toBe('edge-dot');
    expect(brokenPrefixRule('two..dots')).toBe('double-dot');
    expect(brokenPrefixRule('support')).toBe('reserved');
  });

  it('the picker accepts exactly what the service accepts', () => {
    for (const typed of samples) {
      const prefix = typed.toLowerCase();
      const service = checkPrefix(prefix);
      expect(prefixProblem(prefix) === null, typed).toBe(service.ok);
    }
  });

  it('the picker says why in a short line; every reserved name is called reserved', () => {
    expect(prefixProblem('')).toBe('type a name');
    for (const name of RESERVED_PREFIXES) expect(prefixProblem(name)).toBe(`"${name}" is reserved`);
    expect(prefixProblem('two..dots')).toBe('no two dots in a row');
  });
});
