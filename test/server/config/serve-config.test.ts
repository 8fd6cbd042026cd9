/**
 * `serve` settings echo what the user gave when they refuse it. A config file is JSON, where `\u001b`
 * and `\u009b` are real control characters once parsed, and JSON quoting leaves C1 and bidi controls
 * as they are: every such message must still be safe to print on a terminal.
 */
import { describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../../../src/text/safe-text';
import { applyConfigFile, buildServerConfig, SERVE_OPTIONS } from '../../../src/server/config/serve-config';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { configFiles, usageRefusal } from '../../harness/serve-config-files';
import { spawnCli } from '../../harness/serve-process';

const HOSTILE = ['\u001b]0;owned\u0007', '\u009b2J', '\u202egnp.exe', 'a\u001b[31mred'];

const configFile = configFiles('tempmail-serve-config-');

describe('refused values are echoed terminal-safe', () => {
  it.each(HOSTILE)('flags: %j', (value) => {
    const flagCases = [
      { domain: [value] },
      { 'extmail-account': [value] },
      { 'extmail-account': [`a@b.test:${value}`] },
      { 'http-port': value },
      { 'lifetime-minutes': value },
    ];
    for (const flags of flagCases) {
      const message = usageRefusal(() => buildServerConfig(flags, {}));
      expect(isTerminalSafe(message), JSON.stringify(message)).toBe(true);
      expect(message).not.toMatch(/[\u001b\u009b\u202e]/);
    }
  });

  it.each(HOSTILE)('config file keys, values and parse errors: %j', async (value) => {
    const files = [
      JSON.stringify({ [value]: 1 }),
      JSON.stringify({ domains: [value] }),
      JSON.stringify({ httpPort: value }),
      // Not JSON: the parser's message quotes the text around the error ("Unexpected token ...").
      `{"domains": ${value}}`,
    ];
    for (const content of files) {
      const file = await configFile(content);
      const message = usageRefusal(() => applyConfigFile(defaultServerConfig({}), file));
      expect(isTerminalSafe(message), JSON.stringify(message)).toBe(true);
    }
  });

  it('keeps the readable part of the message', async () => {
    const file = await configFile(JSON.stringify({ '\u001b[2Jdomians': ['x.test'] }));
    // JSON quoting shows a C0 control as a visible escape; nothing of it reaches the terminal as ESC.
    expect(usageRefusal(() => applyConfigFile(defaultServerConfig({}), file))).toContain(
      'unknown key "\\u001b[2Jdomians"',
    );
    expect(usageRefusal(() => buildServerConfig({ domain: ['not a domain'] }, {}))).toBe(
      '--domain: "not a domain" is not a domain name',
    );
  });
});

describe('one schema a key, for the flag and the config file alike', () => {
  it('reads every flag of serve by the schema of the setting it names', () => {
    const settings = Object.entries(SERVE_OPTIONS).filter(([flag]) => !['help', 'version', 'config'].includes(flag));
    for (const [flag, option] of settings) {
      if (option.type === 'boolean') {
        const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as 'metrics' | 'trustProxy';
        expect(buildServerConfig({ [flag]: true }, {})[key], flag).toBe(true);
      } else {
        // A value no flag takes: refused in the flag's own name, so the flag was read, not dropped.
        expect(
          usageRefusal(() => buildServerConfig({ [flag]: {} as string }, {})),
          flag,
        ).toMatch(`--${flag}: expected`);
      }
    }
  });

  it('reads the keys that set a setting of another name, and says a refusal in the key the file used', async () => {
    const file = await configFile({ tlsCert: 'c.pem', tlsKey: '/k.pem', sshHostKey: '/h', lifetimeMinutes: 1.5 });
    const config = buildServerConfig({ config: file }, {});
    expect(config).toMatchObject({ tlsKeyFile: '/k.pem', sshHostKeyFile: '/h', lifetimeSeconds: 90 });
    expect(config.tlsCertFile).toMatch(/\/c\.pem$/);
    const bad = await configFile({ lifetimeMinutes: 0 });
    expect(usageRefusal(() => buildServerConfig({ config: bad }, {}))).toMatch(
      /^--config lifetimeMinutes: expected a positive number, got 0 \(in /,
    );
    expect(usageRefusal(() => buildServerConfig({ 'lifetime-minutes': '600000' }, {}))).toBe(
      '--lifetime-minutes: lifetime must be from 1 second to a year',
    );
  });

  it('serves metrics wherever metricsListen is given, whatever the order of the keys', async () => {
    for (const content of [
      { metricsListen: '127.0.0.1:0', metrics: false },
      { metrics: false, metricsListen: '127.0.0.1:0' },
    ]) {
      expect(buildServerConfig({ config: await configFile(content) }, {}).metrics).toBe(true);
    }
  });
});

describe('tempmail-tui serve', () => {
  it('prints a refused config key without its control sequences (exit 2)', async () => {
    const file = await configFile(JSON.stringify({ '\u001b]0;owned\u0007\u009b2Jdomains': ['x.test'] }));
    const proc = spawnCli(['serve', '--config', file]);
    expect((await proc.exited).code).toBe(2);
    expect(proc.stderr()).toContain('unknown key');
    expect(isTerminalSafe(proc.stderr().replace(/\n/g, ' '))).toBe(true);
    expect(proc.stdout()).toBe('');
  });
});
