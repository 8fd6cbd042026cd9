/**
 * The custom-name rules (src/model/prefix-rules.ts) worded for the picker, checked as the user types.
 * The service has the last word (another service may refuse more, and a taken name is only known
 * when asking), so this is advice, not the gate.
 */
import type { NameRules } from '../../client/client-types';
import { brokenPrefixRule, PREFIX_MAX, type PrefixRule } from '../../model/prefix-rules';

const SAY: Record<PrefixRule, (prefix: string) => string> = {
  length: () => `at most ${PREFIX_MAX} characters`,
  chars: () => 'only a-z, 0-9, ".", "_" and "-"',
  'edge-dot': () => 'no dot at the start or the end',
  'double-dot': () => 'no two dots in a row',
  reserved: (prefix) => `"${prefix}" is reserved`,
};

/**
 * Null when `prefix` looks acceptable, else why not (one short line): by the provider's own rules where
 * it has them (`rules`, e.g. mail.tm's 3 characters at least), else by the interface's.
 */
export function prefixProblem(prefix: string, rules?: NameRules, label = 'this provider'): string | null {
  if (prefix.length === 0) return 'type a name';
  if (rules) {
    if (prefix.length < rules.min) return `${label} wants at least ${rules.min} characters`;
    if (prefix.length > rules.max) return `at most ${rules.max} characters on ${label}`;
    if (!rules.pattern.test(prefix)) return `only ${rules.chars} on ${label}`;
    return null;
  }
  const rule = brokenPrefixRule(prefix);
  return rule ? SAY[rule](prefix) : null;
}

/** What the input keeps of what was typed: lower case, no spaces (addresses are case-insensitive). */
export function normalizePrefix(typed: string): string {
  return typed.toLowerCase().replace(/\s+/g, '');
}
