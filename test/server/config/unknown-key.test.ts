/**
 * The words for a config key that is not one: the key meant when one is close, else the keys (a few) or
 * where they are written (many, as serve's top level, whose list once pushed the line past its cut).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { unknownKey } from '../../../src/server/config/unknown-key';
import { closestKey } from '../../../src/text/closest-key';
import { settingSchemas } from '../../../src/server/config/setting-schemas';

const serveKeys = Object.keys(settingSchemas({}));

describe('an unknown config key', () => {
  it.each([
    ['domians', 'domains'], // two letters swapped
    ['httpport', 'httpPort'], // case
    ['http_port', 'httpPort'], // snake case
    ['http-port', 'httpPort'], // the flag's spelling
    ['smtpPrt', 'smtpPort'], // one left out
    ['sshAuthTimeoutMS', 'sshAuthTimeoutMs'],
    ['inbox', 'inboxLimit'], // the only key that starts so
  ])('%s is taken for %s', (typed, meant) => {
    expect(closestKey(typed, serveKeys)).toBe(meant);
  });

  it('names no key when none is within two edits, or one for a key of five characters or fewer', () => {
    expect(closestKey('colour', serveKeys)).toBeUndefined();
    // Two edits from a short key are no sign of a typo: "port" is not "host", "tz" not "tls".
    expect(closestKey('port', serveKeys)).toBeUndefined();
    expect(closestKey('tz', ['host', 'port', 'tls', 'user'])).toBeUndefined();
    expect(closestKey('cert', ['host', 'port', 'tls', 'user'])).toBeUndefined();
    expect(closestKey('hots', serveKeys)).toBe('host');
    // A start shared by several keys names none of them.
    expect(closestKey('smtp', serveKeys)).toBeUndefined();
    expect(closestKey('x'.repeat(100_000), serveKeys)).toBeUndefined();
  });

  it('lists a few keys whole, and names where many are written, in a line well under the 1,000 cut', () => {
    expect(unknownKey('mailbox', ['host', 'port'], 'the docs')).toBe('unknown key "mailbox" (known: host, port)');
    const many = unknownKey('colour', serveKeys, 'docs/server/README.md, "Settings"');
    expect(many).toBe('unknown key "colour" (the keys: docs/server/README.md, "Settings")');
    expect(unknownKey('domians', serveKeys, 'x')).toBe('unknown key "domians" (did you mean "domains"?)');
    expect(unknownKey(5, ['a'], 'x')).toBe('unknown key 5 (known: a)');
  });

  it('is pointed at docs/server/README.md, which names every key serve takes (as a key or as its flag)', async () => {
    const doc = await readFile(new URL('../../../docs/server/README.md', import.meta.url), 'utf8');
    const flag = (k: string) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    expect(serveKeys.filter((k) => !doc.includes(`\`${k}\``) && !doc.includes(flag(k)))).toEqual([]);
  });
});
