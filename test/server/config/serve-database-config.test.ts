/**
 * Where `serve` keeps its data: --database-url, TEMPMAIL_DATABASE_URL or databaseUrl (flags beat the
 * environment, which beats the file); a refused URL is never echoed (it may hold a password); a data dir
 * and a database together are refused; the pool size and the trusted proxies are checked.
 */
import { describe, expect, it } from 'vitest';
import { buildServerConfig } from '../../../src/server/config/serve-config';
import {
  redactDatabaseUrl,
  scrubSecrets,
  urlHasPassword,
} from '../../../src/server/store/postgres/connection/database-url';
import { configFiles, usageRefusal } from '../../harness/serve-config-files';

const configFile = configFiles('tempmail-db-config-');

describe('the database URL setting', () => {
  it('comes from the flag, else the environment, else the config file', async () => {
    const file = await configFile({ databaseUrl: 'postgres://file@db/one' });
    const env = { TEMPMAIL_DATABASE_URL: 'postgresql://env@db/two' };
    expect(buildServerConfig({ config: file }, {}).databaseUrl).toBe('postgres://file@db/one');
    expect(buildServerConfig({ config: file }, env).databaseUrl).toBe('postgresql://env@db/two');
    expect(buildServerConfig({ config: file, 'database-url': 'postgres://flag@db/three' }, env).databaseUrl).toBe(
      'postgres://flag@db/three',
    );
    expect(buildServerConfig({}, {}).databaseUrl).toBeUndefined();
    expect(buildServerConfig({}, {}).databasePoolSize).toBe(10);
  });

  it('refuses what is not a postgres URL without echoing it', async () => {
    const secret = 'mysql://root:Hunter2-secret@db/x';
    for (const message of [
      usageRefusal(() => buildServerConfig({ 'database-url': secret }, {})),
      usageRefusal(() => buildServerConfig({}, { TEMPMAIL_DATABASE_URL: secret })),
    ]) {
      expect(message).toMatch(/expected a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(message).not.toContain('Hunter2');
    }
    const file = await configFile({ databaseUrl: `${secret} \u001b[2J` });
    expect(usageRefusal(() => buildServerConfig({ config: file }, {}))).not.toContain('Hunter2');
  });

  it('refuses a data dir and a database given by one source; between sources the higher one wins, and says so', async () => {
    const url = 'postgres://u@db/x';
    expect(usageRefusal(() => buildServerConfig({ 'data-dir': '/tmp/x', 'database-url': url }, {}))).toMatch(
      /^give --data-dir or --database-url, not both$/,
    );
    const both = await configFile({ dataDir: '/tmp/x', databaseUrl: url });
    expect(usageRefusal(() => buildServerConfig({ config: both }, {}))).toMatch(
      /^give dataDir or databaseUrl in the config file, not both$/,
    );
    const env = { TEMPMAIL_DATABASE_URL: url };
    // Flags beat the environment: --data-dir with TEMPMAIL_DATABASE_URL set keeps the data in the dir.
    let notes: string[] = [];
    let config = buildServerConfig({ 'data-dir': '/tmp/flag' }, env, notes);
    expect(config).toMatchObject({ dataDir: '/tmp/flag', databaseUrl: undefined });
    expect(notes).toEqual(['storage: the data dir of the flags overrides the database of TEMPMAIL_DATABASE_URL']);
    // The environment beats the file, and a flag beats both.
    const dirFile = await configFile({ dataDir: '/tmp/file' });
    notes = [];
    expect(buildServerConfig({ config: dirFile }, env, notes).databaseUrl).toBe(url);
    expect(notes).toEqual(['storage: the database of TEMPMAIL_DATABASE_URL overrides the data dir of the config file']);
    notes = [];
    config = buildServerConfig({ config: both, 'data-dir': '/tmp/flag' }, env, notes);
    expect(config).toMatchObject({ dataDir: '/tmp/flag', databaseUrl: undefined });
    expect(notes).toEqual([
      'storage: the data dir of the flags overrides the database of TEMPMAIL_DATABASE_URL',
      'storage: the data dir of the flags overrides the database of the config file',
    ]);
    notes = [];
    expect(buildServerConfig({ config: dirFile, 'database-url': 'postgres://flag@db/y' }, {}, notes).databaseUrl).toBe(
      'postgres://flag@db/y',
    );
    expect(notes).toEqual(['storage: the database of the flags overrides the data dir of the config file']);
  });

  it('checks the pool size and the trusted proxies', async () => {
    expect(buildServerConfig({ config: await configFile({ databasePoolSize: 25 }) }, {}).databasePoolSize).toBe(25);
    const zero = await configFile({ databasePoolSize: 0 });
    expect(usageRefusal(() => buildServerConfig({ config: zero }, {}))).toMatch(
      /databasePoolSize: expected a whole number from 1 to 1000/,
    );
    const proxies = await configFile({ trustedProxies: ['10.0.0.2', '::1'] });
    expect(buildServerConfig({ config: proxies }, {}).trustedProxies).toEqual(['10.0.0.2', '::1']);
    const bad = await configFile({ trustedProxies: ['lb.example'] });
    expect(usageRefusal(() => buildServerConfig({ config: bad }, {}))).toMatch(/"lb.example" is not an IP address/);
  });
});

describe('the password never shows', () => {
  it('is redacted in the URL, in either place a URL can hold it', () => {
    expect(redactDatabaseUrl('postgres://ann:s3cr%40t@db:5432/mail?sslmode=require')).toBe(
      'postgres://ann:***@db:5432/mail?sslmode=require',
    );
    expect(redactDatabaseUrl('postgresql://ann@db/mail?password=pw123&sslmode=require')).toBe(
      'postgresql://ann@db/mail?password=***&sslmode=require',
    );
    expect(redactDatabaseUrl('postgres://db/mail')).toBe('postgres://db/mail');
    expect(urlHasPassword('postgres://ann:x@db/mail')).toBe(true);
    expect(urlHasPassword('postgres://ann@db/mail')).toBe(false);
  });

  it('is scrubbed from any line: the URL, the password as written and decoded, and PGPASSWORD', () => {
    const url = 'postgres://ann:s3cr%40t!@db/mail';
    const line = `cannot open ${url}: auth for s3cr@t! failed (s3cr%40t!), env Env-Secret-99`;
    const out = scrubSecrets(line, url, { PGPASSWORD: 'Env-Secret-99' });
    expect(out).toBe('cannot open postgres://ann:***@db/mail: auth for *** failed (***), env ***');
  });
});
