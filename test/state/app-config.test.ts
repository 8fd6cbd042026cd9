import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadSettings } from '../../src/state/app-config';
import { appPaths } from '../../src/state/paths';

let home: string;
let paths: ReturnType<typeof appPaths>;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'tempmail-config-'));
  paths = appPaths({ TEMPMAIL_TUI_HOME: home });
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function writeConfig(content: string | object): string {
  mkdirSync(paths.config, { recursive: true });
  const file = join(paths.config, 'config.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function clearConfig(): void {
  rmSync(join(paths.config, 'config.json'), { force: true });
}

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadSettings', () => {
  it('has defaults when nothing is configured', () => {
    const s = loadSettings({ env: {}, paths });
    expect(s).toEqual({
      pollIntervalMs: 5000,
      bell: true,
      serverTz: 'UTC',
      postEncoding: 'form',
      downloadDir: paths.downloads,
      providers: {},
      providerOrder: ['mailtm', 'tempmaillol', 'guerrilla', 'tempmail'],
    });
    expect('baseUrl' in s).toBe(false);
  });

  it('reads every key of the config file', () => {
    writeConfig({
      baseUrl: 'https://mail.example/api/',
      pollIntervalSeconds: 2.5,
      bell: false,
      serverTz: 'Europe/Berlin',
      postEncoding: 'json',
      downloadDir: '~/mail-files',
    });
    expect(loadSettings({ env: { HOME: '/home/u' }, paths })).toEqual({
      baseUrl: 'https://mail.example/api/',
      pollIntervalMs: 2500,
      bell: false,
      serverTz: 'Europe/Berlin',
      postEncoding: 'json',
      downloadDir: '/home/u/mail-files',
      providers: {},
      providerOrder: ['mailtm', 'tempmaillol', 'guerrilla', 'tempmail'],
    });
  });

  it('lets the environment override the file, and flags override both', () => {
    writeConfig({ baseUrl: 'http://file.example/', pollIntervalSeconds: 9, bell: true, postEncoding: 'json' });
    const env = {
      TEMPMAIL_BASE_URL: 'http://env.example/',
      TEMPMAIL_POLL_INTERVAL: '3',
      TEMPMAIL_BELL: 'off',
      TEMPMAIL_SERVER_TZ: '+02:00',
      TEMPMAIL_POST_ENCODING: 'QUERY',
      TEMPMAIL_DOWNLOAD_DIR: '/tmp/env-dl',
    };
    const fromEnv = loadSettings({ env, paths });
    expect(fromEnv).toMatchObject({
      baseUrl: 'http://env.example/',
      pollIntervalMs: 3000,
      bell: false,
      serverTz: '+02:00',
      postEncoding: 'query',
      downloadDir: '/tmp/env-dl',
    });
    const fromFlags = loadSettings({
      env,
      paths,
      flags: {
        baseUrl: 'http://flag.example/',
        pollInterval: '1',
        bell: true,
        serverTz: 'UTC',
        postEncoding: 'form',
        downloadDir: '/tmp/flag-dl',
      },
    });
    expect(fromFlags).toEqual({
      baseUrl: 'http://flag.example/',
      pollIntervalMs: 1000,
      bell: true,
      serverTz: 'UTC',
      postEncoding: 'form',
      downloadDir: '/tmp/flag-dl',
      providers: {},
      providerOrder: ['mailtm', 'tempmaillol', 'guerrilla', 'tempmail'],
    });
  });

  it('ignores empty environment variables', () => {
    writeConfig({ baseUrl: 'http://file.example/' });
    expect(loadSettings({ env: { TEMPMAIL_BASE_URL: '', TEMPMAIL_POLL_INTERVAL: ' ' }, paths })).toMatchObject({
      baseUrl: 'http://file.example/',
      pollIntervalMs: 5000,
    });
  });

  it('reads an empty file as an empty config', () => {
    writeConfig('\n');
    expect(loadSettings({ env: {}, paths }).pollIntervalMs).toBe(5000);
  });
});

describe('bad settings name the file (or variable, or flag) and the key', () => {
  it('poll interval that is not a number', () => {
    writeConfig({ pollIntervalSeconds: 'fast' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain(
      'config.json: pollIntervalSeconds must be a number of seconds >= 1, got "fast"',
    );
  });

  it('poll interval below one second', () => {
    writeConfig({ pollIntervalSeconds: 0.5 });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toMatch(
      /config\.json: pollIntervalSeconds .*got 0\.5/,
    );
    clearConfig();
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_POLL_INTERVAL: '0' }, paths })).message).toMatch(
      /^TEMPMAIL_POLL_INTERVAL must be a number of seconds >= 1, got "0"/,
    );
    expect(errorOf(() => loadSettings({ env: {}, paths, flags: { pollInterval: '-3' } })).message).toMatch(
      /^--poll-interval /,
    );
  });

  it('invalid JSON names the file', () => {
    const file = writeConfig('{"baseUrl": ');
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toMatch(new RegExp(`^${file}: not valid JSON`));
  });

  it('a JSON value that is not an object', () => {
    writeConfig('[1,2]');
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain('config.json: must be a JSON object');
  });

  it('unknown key: the one meant when it is close, else the known ones listed', () => {
    writeConfig({ baseURL: 'http://x.example/' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toMatch(
      /config\.json: unknown key "baseURL" \(did you mean "baseUrl"\?\)$/,
    );
    writeConfig({ poll: 5 });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toMatch(
      /unknown key "poll" \(did you mean "pollIntervalSeconds"\?\)$/,
    );
    writeConfig({ colour: 'blue' });
    const message = errorOf(() => loadSettings({ env: {}, paths })).message;
    expect(message).toContain('config.json: unknown key "colour" (known keys: ');
    expect(message).toContain('baseUrl, pollIntervalSeconds, bell, serverTz, postEncoding, downloadDir');
  });

  it('wrong types', () => {
    writeConfig({ bell: 'yes' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain(
      'config.json: bell must be true or false, got "yes"',
    );
    writeConfig({ baseUrl: 42 });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain('config.json: baseUrl must be a string');
    writeConfig({ pollIntervalSeconds: '5' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain('config.json: pollIntervalSeconds');
  });

  it('base URL must be http(s)', () => {
    writeConfig({ baseUrl: 'file:///etc/passwd' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain(
      'config.json: baseUrl must be an http(s) URL',
    );
    clearConfig();
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_BASE_URL: 'not a url' }, paths })).message).toMatch(
      /^TEMPMAIL_BASE_URL must be/,
    );
    expect(errorOf(() => loadSettings({ env: {}, paths, flags: { baseUrl: 'ftp://x/' } })).message).toMatch(
      /^--base-url must be/,
    );
  });

  it('time zone validated', () => {
    writeConfig({ serverTz: 'Mars/Olympus' });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toContain(
      'config.json: serverTz must be a time zone',
    );
    clearConfig();
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_SERVER_TZ: '+25:00' }, paths })).message).toMatch(
      /^TEMPMAIL_SERVER_TZ/,
    );
  });

  it('post encoding and bell from the environment', () => {
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_POST_ENCODING: 'xml' }, paths })).message).toBe(
      'TEMPMAIL_POST_ENCODING must be one of form, json, query, got "xml"',
    );
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_BELL: 'maybe' }, paths })).message).toMatch(
      /^TEMPMAIL_BELL must be true or false/,
    );
  });

  it('says what each key takes, in its own words', () => {
    const cases: [object, string][] = [
      [{ pollIntervalSeconds: 3601 }, 'pollIntervalSeconds must be at most 3600 seconds, got 3601'],
      [{ downloadDir: ' ' }, 'downloadDir must be a directory path, got " "'],
      [{ downloadDir: 7 }, 'downloadDir must be a string (a directory path), got 7'],
      [{ serverTz: true }, 'serverTz must be a string (a time zone), got true'],
      [{ postEncoding: null }, 'postEncoding must be a string (form, json, query), got null'],
      [
        { provider: ['mailtm'] },
        'provider must be a string (tempmail, mailtm, guerrilla, tempmaillol, auto), got ["mailtm"]',
      ],
    ];
    for (const [content, said] of cases) {
      const file = writeConfig(content);
      expect(errorOf(() => loadSettings({ env: {}, paths })).message).toBe(`${file}: ${said}`);
    }
    clearConfig();
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_BELL: 'maybe' }, paths })).message).toBe(
      'TEMPMAIL_BELL must be true or false (1/0, yes/no, on/off), got "maybe"',
    );
    expect(errorOf(() => loadSettings({ env: {}, paths, flags: { pollInterval: '7200' } })).message).toBe(
      '--poll-interval must be at most 3600 seconds, got "7200"',
    );
    expect(errorOf(() => loadSettings({ env: {}, paths, flags: { downloadDir: 'a\0b' } })).message).toBe(
      '--download-dir must be a directory path, got "a\\u0000b"',
    );
    expect(loadSettings({ env: { TEMPMAIL_BELL: ' OFF ', TEMPMAIL_PROVIDER: ' AUTO ' }, paths })).toMatchObject({
      bell: false,
      provider: 'auto',
    });
  });

  it('a hostile value is shown without control characters', () => {
    writeConfig({ postEncoding: 'x\u001b]0;pwned\u0007\u202e' });
    const message = errorOf(() => loadSettings({ env: {}, paths })).message;
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });

  it('a bad file is reported even when the environment overrides its key', () => {
    writeConfig({ pollIntervalSeconds: 'fast' });
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_POLL_INTERVAL: '2' }, paths })).message).toContain(
      'pollIntervalSeconds',
    );
  });

  it('an unreadable config path is an error, not a default', () => {
    mkdirSync(join(paths.config, 'config.json'), { recursive: true });
    expect(errorOf(() => loadSettings({ env: {}, paths })).message).toMatch(/config\.json: cannot be read \(EISDIR\)/);
  });
});

describe('provider', () => {
  it('from the file, the environment or a flag, the later winning; bad names refused with the choices', () => {
    writeConfig({ provider: 'guerrilla' });
    expect(loadSettings({ env: {}, paths }).provider).toBe('guerrilla');
    expect(loadSettings({ env: { TEMPMAIL_PROVIDER: 'MailTM' }, paths }).provider).toBe('mailtm');
    expect(
      loadSettings({ env: { TEMPMAIL_PROVIDER: 'mailtm' }, paths, flags: { provider: 'tempmail' } }).provider,
    ).toBe('tempmail');
    expect(errorOf(() => loadSettings({ env: {}, paths, flags: { provider: '1secmail' } })).message).toBe(
      '--provider must be one of tempmail, mailtm, guerrilla, tempmaillol or auto, got "1secmail"',
    );
    expect(errorOf(() => loadSettings({ env: { TEMPMAIL_PROVIDER: 'x' }, paths })).message).toContain(
      'TEMPMAIL_PROVIDER must be one of',
    );
  });

  it('a base URL belongs to the provider named where it was set', () => {
    // A tempmail service in the environment is not mail.tm's address because a flag names mail.tm.
    const env = { TEMPMAIL_BASE_URL: 'http://127.0.0.1:8025/' };
    expect(loadSettings({ env, paths, flags: { provider: 'mailtm' } })).not.toHaveProperty('baseUrl');
    // Named together, they go together; naming tempmail keeps a tempmail URL from further out.
    expect(loadSettings({ env, paths, flags: { provider: 'mailtm', baseUrl: 'https://api.mail.gw' } })).toMatchObject({
      provider: 'mailtm',
      baseUrl: 'https://api.mail.gw',
    });
    expect(loadSettings({ env, paths, flags: { provider: 'tempmail' } })).toMatchObject({
      provider: 'tempmail',
      baseUrl: 'http://127.0.0.1:8025/',
    });
    writeConfig({ provider: 'mailtm', baseUrl: 'https://api.mail.gw' });
    expect(loadSettings({ env: {}, paths })).toMatchObject({ provider: 'mailtm', baseUrl: 'https://api.mail.gw' });
    expect(loadSettings({ env: { TEMPMAIL_PROVIDER: 'guerrilla' }, paths })).not.toHaveProperty('baseUrl');
  });
});
