import { describe, expect, it } from 'vitest';
import { brokenPrefixRule, RESERVED_PREFIXES } from '../../src/model/prefix-rules';
import { checkPrefix } from '../../src/server/mail/addresses';
import { prefixProblem } from '../../src/tui/picker/prefix-feedback';

describe('prefix rules, one table for the picker and the service', () => {
  const samples = [
    'a', 'quiet-otter', 'first.last', 'x_y-z.9', 'a'.repeat(64), 'a'.repeat(65), 'Upper', 'sp ace', 'ümlaut',
    '.lead', 'trail.', 'two..dots', 'a+b', ...RESERVED_PREFIXES,
  ];

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
