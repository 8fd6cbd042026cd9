/**
 * A JSON object that names a key twice is ambiguous (JSON.parse silently keeps the last; other parsers
 * keep the first), and guessing which one the caller meant is how a delete hits the wrong message or a
 * proxy and the service disagree on a token. The service refuses such a body with 400 bad_request, at
 * any depth and however the key is escaped, over real HTTP; the --config file is read the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyConfigFile, UsageError } from '../../../src/server/config/serve-config';
import { defaultServerConfig } from '../../../src/server/config/server-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startTestService, type TestService } from '../../harness/service';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());
const cleanup = cleanupAfterEach();

const JSON_TYPE = { 'content-type': 'application/json' };

describe('JSON bodies with a key given twice', () => {
  it('are refused with 400 bad_request naming the key, whatever the values, the escaping or the depth', async () => {
    const s = await newSession(svc.baseUrl);
    const bodies: [string, string][] = [
      ['{"prefix":"first-one","prefix":"second-one"}', 'prefix'],
      // The same value twice is still two keys: refused, not merged.
      ['{"prefix":"same-one","prefix":"same-one"}', 'prefix'],
      // "\u0066" is "f": one key, spelt two ways.
      ['{"prefix":"esc-one","pre\\u0066ix":"esc-two"}', 'prefix'],
      ['{"domain_id":1,"extra":{"a":1,"a":2}}', 'a'],
      ['{"domain_id":1,"extra":[1,{"deep":[{"b":true,"b":false}]}]}', 'b'],
    ];
    for (const [body, key] of bodies) {
      // With its media type, and without one (a bare `curl --data-binary '{...}'`: a Buffer gets none).
      for (const [sent, headers] of [
        [body, JSON_TYPE],
        [Buffer.from(body), {}],
      ] as const) {
        const res = await call(svc.baseUrl, '/create-session', { body: sent, headers });
        expect(res.status, body).toBe(400);
        expect(res.json, body).toEqual({
          status: 'error',
          error: 'bad_request',
          message: `The JSON body names the key "${key}" twice`,
        });
      }
    }
    // A delete that names its id twice deletes nothing.
    const del = await call(svc.baseUrl, '/delete-mail', {
      body: `{"token":"${s.token}","id":1,"id":2}`,
      headers: JSON_TYPE,
    });
    expect(del.status).toBe(400);
    expect(del.json?.error).toBe('bad_request');
    // Nothing was created by any of the refused bodies.
    const created = svc.logs.filter((line) => /POST \/create-session 200/.test(line));
    expect(created).toHaveLength(1);
  });

  it('a key repeated in different objects, or a value equal to a key, is fine', async () => {
    const ok = await call(svc.baseUrl, '/create-session', {
      body: '{"prefix":"prefix","domain_id":1}',
      headers: JSON_TYPE,
    });
    expect(ok.status, JSON.stringify(ok.json)).toBe(200);
    expect(ok.json?.email).toBe('prefix@tempmail.test');
    // Nested objects are still refused as parameter values, for that reason and not as duplicates.
    const nested = await call(svc.baseUrl, '/create-session', {
      body: '{"a":{"k":1},"b":{"k":2}}',
      headers: JSON_TYPE,
    });
    expect(nested.status).toBe(400);
    expect(nested.json?.message).toBe('Parameter "a" must be a string, number or boolean');
  });

  it('in a --config file is a refusal naming the key, not a silent last-one-wins', async () => {
    const dir = await cleanup.tempDir('tempmail-dup-config-');
    const file = join(dir, 'serve.json');
    await writeFile(file, '{"httpPort": 8025, "domains": ["a.test"], "httpPort": 9025}');
    expect(() => applyConfigFile(defaultServerConfig({}), file)).toThrow(UsageError);
    expect(() => applyConfigFile(defaultServerConfig({}), file)).toThrow(
      `--config: the key "httpPort" is given twice (in ${file})`,
    );
  });
});
