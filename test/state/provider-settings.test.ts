/**
 * Issue 24, point 5: config.json's per-provider settings (`providers`) and `providerOrder`, TempMail.lol's
 * key from TEMPMAIL_TEMPMAILLOL_KEY, and `auto`; each bad value refused with the key it is under.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configuredRef, orderedRefs, providerChoices } from '../../src/client/providers';
import { loadSettings } from '../../src/state/app-config';

let dir: string;
let paths: { config: string; downloads: string };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'provider-settings-'));
  paths = { config: join(dir, 'config'), downloads: join(dir, 'dl') };
  mkdirSync(paths.config, { mode: 0o700 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const writeConfig = (value: unknown) =>
  writeFileSync(join(paths.config, 'config.json'), JSON.stringify(value), { mode: 0o600 });

describe('providers and providerOrder', () => {
  it('reads each provider base URL and key, the order, and auto; the variable beats the file for the key', () => {
    writeConfig({
      provider: 'auto',
      providers: {
        mailtm: { baseUrl: 'https://api.mail.gw/' },
        tempmaillol: { baseUrl: 'http://127.0.0.1:9/', apiKey: 'tm.file.key' },
      },
      providerOrder: ['guerrilla', 'mailtm', 'tempmaillol'],
    });
    const s = loadSettings({ env: {}, paths });
    expect(s).toMatchObject({
      provider: 'auto',
      providers: {
        mailtm: { baseUrl: 'https://api.mail.gw/' },
        tempmaillol: { baseUrl: 'http://127.0.0.1:9/', apiKey: 'tm.file.key' },
      },
      providerOrder: ['guerrilla', 'mailtm', 'tempmaillol'],
    });
    expect(orderedRefs(s)).toEqual([
      { provider: 'guerrilla', baseUrl: 'https://api.guerrillamail.com/' },
      { provider: 'mailtm', baseUrl: 'https://api.mail.gw/' },
      { provider: 'tempmaillol', baseUrl: 'http://127.0.0.1:9/' },
    ]);
    expect(configuredRef(s)).toEqual({ provider: 'guerrilla', baseUrl: 'https://api.guerrillamail.com/' });
    expect(loadSettings({ env: { TEMPMAIL_TEMPMAILLOL_KEY: 'tm.env.key' }, paths }).providers.tempmaillol).toEqual({
      baseUrl: 'http://127.0.0.1:9/',
      apiKey: 'tm.env.key',
    });
  });

  it("a named provider's own base URL comes from `providers`; --base-url still beats it", () => {
    writeConfig({ providers: { mailtm: { baseUrl: 'https://api.mail.gw/' } } });
    expect(configuredRef(loadSettings({ env: {}, paths, flags: { provider: 'mailtm' } }))).toEqual({
      provider: 'mailtm',
      baseUrl: 'https://api.mail.gw/',
    });
    expect(
      configuredRef(loadSettings({ env: {}, paths, flags: { provider: 'mailtm', baseUrl: 'http://127.0.0.1:1/' } })),
    ).toEqual({ provider: 'mailtm', baseUrl: 'http://127.0.0.1:1/' });
  });

  it("p's choices follow the order and never offer the provider it starts on again", () => {
    const s = loadSettings({ env: {}, paths, flags: { provider: 'mailtm', baseUrl: 'http://127.0.0.1:1/' } });
    expect(providerChoices(configuredRef(s)!, s).map((r) => r.provider)).toEqual([
      'mailtm',
      'tempmaillol',
      'guerrilla',
      'tempmail',
    ]);
    // The app's own local service is not the public tempmail service: that one is still offered.
    expect(providerChoices({ provider: 'tempmail', baseUrl: 'local:/x' }, s).map((r) => r.provider)).toEqual([
      'tempmail',
      'mailtm',
      'tempmaillol',
      'guerrilla',
      'tempmail',
    ]);
  });

  it.each([
    [{ providers: [] }, /providers must be an object/],
    [{ providers: { yopmail: {} } }, /providers: unknown provider "yopmail"/],
    [{ providers: { mailtm: { apiKey: 'x' } } }, /providers\.mailtm: unknown key "apiKey" \(known keys: baseUrl\)/],
    [
      { providers: { mailtm: { baseURL: 'x' } } },
      /providers\.mailtm: unknown key "baseURL" \(did you mean "baseUrl"\?\)$/,
    ],
    [{ providers: { mailTM: {} } }, /providers: unknown provider "mailTM" \(did you mean "mailtm"\?\)$/],
    [{ providers: { guerrilla: { baseUrl: 'ftp://x' } } }, /providers\.guerrilla\.baseUrl must be an http\(s\) URL/],
    [{ providers: { tempmaillol: { apiKey: 'has a space' } } }, /providers\.tempmaillol\.apiKey must be an API key/],
    [{ providerOrder: [] }, /providerOrder must be a list of providers/],
    [{ providerOrder: ['mailtm', 'mailtm'] }, /providerOrder names mailtm twice/],
    [{ providerOrder: ['mailtm', 'nope'] }, /providerOrder: unknown provider "nope"/],
    [{ provider: 'auto', baseUrl: 'https://x.example/' }, /with provider auto, give each its own in config\.json/],
    [{ providers: { mailtm: [] } }, /: providers\.mailtm must be an object such as \{"baseUrl": "https:\/\/\.\.\."\}$/],
    [{ providers: { mailtm: { baseUrl: 5 } } }, /: providers\.mailtm\.baseUrl must be a non-empty string$/],
    [{ providers: { tempmaillol: { apiKey: ' ' } } }, /: providers\.tempmaillol\.apiKey must be a non-empty string$/],
    [{ providerOrder: 'mailtm' }, /: providerOrder must be a list of providers such as \["mailtm",/],
    [
      { providerOrder: ['mailtm', 3] },
      /: providerOrder: unknown provider 3 \(known: tempmail, mailtm, guerrilla, tempmaillol\)$/,
    ],
  ])('refuses %j', (config, said) => {
    writeConfig(config);
    expect(() => loadSettings({ env: {}, paths })).toThrow(said);
  });

  it('never says the key it refuses', () => {
    expect(() => loadSettings({ env: { TEMPMAIL_TEMPMAILLOL_KEY: 'secret key with spaces' }, paths })).toThrow(
      /^TEMPMAIL_TEMPMAILLOL_KEY must be an API key/,
    );
    try {
      loadSettings({ env: { TEMPMAIL_TEMPMAILLOL_KEY: 'secret key with spaces' }, paths });
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });
});
