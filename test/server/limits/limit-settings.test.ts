/**
 * The settings of the limits, the metrics and the log format: flags and config keys, their defaults, and
 * the values refused (exit 2 in `serve`, a UsageError here).
 */
import { describe, expect, it } from 'vitest';
import { buildServerConfig } from '../../../src/server/config/serve-config';
import { connectionsPerClient } from '../../../src/server/config/server-config';
import { configFiles, usageRefusal } from '../../harness/serve-config-files';

const configFile = configFiles('tempmail-limit-config-');

describe('limit settings', () => {
  it('default to a tenth of the connections per client, 300 messages, 1000 recipients, 1200 requests a minute, no cap, text logs, no metrics', () => {
    const c = buildServerConfig({}, {});
    expect(c).toMatchObject({
      smtpMaxConnections: 200,
      smtpMessagesPerMinute: 300,
      smtpRecipientsPerMinute: 1000,
      httpRequestsPerMinute: 1200,
    });
    expect(c).toMatchObject({ maxStoredMessages: 0, maxStoredBytes: 0, metrics: false, logFormat: 'text' });
    expect(connectionsPerClient(c)).toBe(20);
    expect(connectionsPerClient(buildServerConfig({ 'smtp-max-connections': '1000' }, {}))).toBe(100);
    expect(connectionsPerClient(buildServerConfig({ 'smtp-connections-per-client': '0' }, {}))).toBe(0);
  });

  it('come from flags over the config file; 0 turns a rate off', async () => {
    const file = await configFile({
      httpRequestsPerMinute: 50,
      smtpMessagesPerMinute: 7,
      logFormat: 'json',
      metricsListen: '[::1]:9025',
    });
    const c = buildServerConfig(
      {
        config: file,
        'http-requests-per-minute': '0',
        'smtp-recipients-per-minute': '9',
        'max-stored-messages': '1000',
      },
      {},
    );
    expect(c).toMatchObject({
      httpRequestsPerMinute: 0,
      smtpMessagesPerMinute: 7,
      smtpRecipientsPerMinute: 9,
      maxStoredMessages: 1000,
      logFormat: 'json',
    });
    expect(c).toMatchObject({ metrics: true, metricsListen: { host: '::1', port: 9025 } });
    expect(buildServerConfig({ metrics: true, 'metrics-listen': '127.0.0.1:0' }, {}).metricsListen).toEqual({
      host: '127.0.0.1',
      port: 0,
    });
  });

  it('refuses what does not read: a negative rate, a bad listen address, an unknown log format', () => {
    expect(usageRefusal(() => buildServerConfig({ 'smtp-messages-per-minute': '-1' }, {}))).toMatch(
      /^--smtp-messages-per-minute: expected a whole number from 0/,
    );
    expect(usageRefusal(() => buildServerConfig({ 'metrics-listen': '9025' }, {}))).toMatch(
      /^--metrics-listen: expected HOST:PORT/,
    );
    expect(usageRefusal(() => buildServerConfig({ 'metrics-listen': 'localhost:99999' }, {}))).toMatch(
      /^--metrics-listen: expected a whole number from 0 to 65535/,
    );
    expect(usageRefusal(() => buildServerConfig({ 'log-format': 'xml' }, {}))).toBe(
      '--log-format: expected "text" or "json", got "xml"',
    );
  });

  it('takes a byte cap on a database (the messages as received are counted there)', () => {
    expect(
      buildServerConfig({ 'database-url': 'postgres://u@db/x', 'max-stored-bytes': '1000' }, {}).maxStoredBytes,
    ).toBe(1000);
  });
});
