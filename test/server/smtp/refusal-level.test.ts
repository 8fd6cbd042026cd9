/** refusalLevel (smtp-intake.ts): which SMTP refusals the log folds as warnings (our trouble, a limit) and which are info. */
import { describe, expect, it } from 'vitest';
import { refusalLevel } from '../../../src/server/smtp/smtp-intake';

describe('refusalLevel', () => {
  it('warns for shutting down, too much in flight, a rate limit and storage trouble', () => {
    expect(refusalLevel(421, 'shutting_down')).toBe('warn');
    expect(refusalLevel(451, 'over_budget')).toBe('warn');
    expect(refusalLevel(450, 'rate_limited')).toBe('warn');
    expect(refusalLevel(452, 'storage_full')).toBe('warn');
  });

  it('keeps a verdict on the mail itself at info', () => {
    expect(refusalLevel(550, 'unknown_recipient')).toBe('info');
    expect(refusalLevel(452, 'too_many_recipients')).toBe('info');
    expect(refusalLevel(552, 'too_large')).toBe('info');
  });
});
