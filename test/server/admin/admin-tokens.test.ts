/**
 * Named admin tokens (config `adminTokens: [{"name", "file"}]`; `--admin-token-file` is the token named
 * "admin"), over real HTTP: each opens the admin API, and every admin action is logged with its actor
 * (the token's name), the action and its target, never the token. The built serve with JSON logs, and a
 * reload that takes a token away.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildServerConfig } from '../../../src/server/config/serve-config';
import { cleanupAfterEach } from '../../harness/cleanup';
import { call, newSession } from '../../harness/http';
import { startServeProcess, stopServe } from '../../harness/serve-process';
import { configFiles, usageRefusal } from '../../harness/serve-config-files';
import { startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const configFile = configFiles('tempmail-admin-tokens-');
const TOKENS = {
  admin: 'single-admin-token-0123456789abcdef',
  alice: 'alice-admin-token-0123456789abcdef',
  bob: 'bob-admin-token-0123456789abcdef0',
};

async function tokenFiles(): Promise<Record<keyof typeof TOKENS, string>> {
  const dir = await cleanup.tempDir('tempmail-admin-tokens-');
  const files = {} as Record<keyof typeof TOKENS, string>;
  for (const [name, token] of Object.entries(TOKENS)) {
    files[name as keyof typeof TOKENS] = join(dir, `${name}.token`);
    await writeFile(join(dir, `${name}.token`), `${token}\n`, { mode: 0o600 });
  }
  return files;
}

const as = (name: keyof typeof TOKENS) => ({ headers: { authorization: `Bearer ${TOKENS[name]}` } });

describe('named admin tokens', () => {
  it('each opens the admin API, and the log names who did what to what, never a token', async () => {
    const files = await tokenFiles();
    const adminTokens = [
      { name: 'alice', file: files.alice },
      { name: 'bob', file: files.bob },
    ];
    const svc = cleanup.defer(await startTestService({ adminTokenFile: files.admin, adminTokens }), (s) => s.close());
    const box = await newSession(svc.baseUrl);
    const sessionId = (await call(svc.baseUrl, '/admin/sessions', { ...as('admin'), query: { recipient: box.email } }))
      .json!.sessions[0].id;
    expect(
      (await call(svc.baseUrl, '/admin/block', { ...as('alice'), form: { kind: 'domain', value: 'Bad.Example' } }))
        .status,
    ).toBe(200);
    expect(
      (await call(svc.baseUrl, '/admin/block', { ...as('bob'), form: { kind: 'domain', value: 'bad.example' } })).json,
    ).toMatchObject({ added: false });
    expect(
      (await call(svc.baseUrl, '/admin/unblock', { ...as('bob'), form: { kind: 'domain', value: 'BAD.example' } }))
        .status,
    ).toBe(200);
    expect(
      (await call(svc.baseUrl, '/admin/delete-session', { ...as('alice'), form: { session_id: sessionId } })).status,
    ).toBe(200);
    expect(
      (await call(svc.baseUrl, '/admin/delete-session', { ...as('bob'), form: { session_id: sessionId } })).status,
    ).toBe(404);
    expect((await call(svc.baseUrl, '/admin/stats', as('bob'))).status).toBe(200);
    expect(
      (
        await call(svc.baseUrl, '/admin/stats', {
          headers: { authorization: 'Bearer carol-admin-token-0123456789abcdef' },
        })
      ).status,
    ).toBe(401);

    const actions = svc.logs.filter((l) => l.startsWith('admin: '));
    expect(actions).toEqual([
      `admin: admin searched sessions recipient=${box.email} | actor=admin action=sessions target="recipient=${box.email}" result=done`,
      'admin: alice blocked domain bad.example | actor=alice action=block target="domain bad.example" result=done',
      'admin: bob blocked domain bad.example (already blocked) | actor=bob action=block target="domain bad.example" result=already',
      'admin: bob unblocked domain bad.example | actor=bob action=unblock target="domain bad.example" result=done',
      `admin: alice deleted session ${sessionId} | actor=alice action=delete-session target="session ${sessionId}" result=done`,
      `admin: bob deleted session ${sessionId} (there was none) | actor=bob action=delete-session target="session ${sessionId}" result=not_found`,
      'admin: bob read the stats | actor=bob action=stats result=done',
    ]);
    for (const token of Object.values(TOKENS)) expect(svc.logs.join('\n')).not.toContain(token);
  });

  it('refuses one token under two names, two tokens of one name, a bad name, and "admin" beside --admin-token-file', async () => {
    const files = await tokenFiles();
    await expect(
      startTestService({
        adminTokens: [
          { name: 'alice', file: files.alice },
          { name: 'carol', file: files.alice },
        ],
      }),
    ).rejects.toThrow(
      'the admin tokens alice and carol are the same token (give each its own: the log names who acted)',
    );
    const refusal = async (adminTokens: unknown, flags: Record<string, string> = {}) => {
      const config = await configFile({ adminTokens });
      return usageRefusal(() => buildServerConfig({ config, ...flags }, {}));
    };
    expect(
      await refusal([
        { name: 'alice', file: files.alice },
        { name: 'alice', file: files.bob },
      ]),
    ).toMatch(/^--config adminTokens: the name "alice" is given twice/);
    expect(await refusal([{ name: 'al ice', file: files.alice }])).toMatch(
      /^--config adminTokens\[0\]\.name: expected 1 to 64 letters/,
    );
    expect(await refusal([{ name: 'alice', file: files.alice, token: 'x' }])).toMatch(
      /^--config adminTokens\[0\]: unknown key "token"/,
    );
    expect(await refusal([{ name: 'alice' }])).toMatch(/^--config adminTokens\[0\]\.file: expected a file path/);
    // Each entry's type, and each value's, is named with where it is.
    expect(await refusal('alice')).toMatch(
      /^--config adminTokens: expected a list of \{"name": \.\.\., "file": \.\.\.\} \(in /,
    );
    expect(await refusal([files.alice])).toMatch(
      /^--config adminTokens\[0\]: expected \{"name": \.\.\., "file": \.\.\.\} \(in /,
    );
    expect(await refusal([[files.alice]])).toMatch(
      /^--config adminTokens\[0\]: expected \{"name": \.\.\., "file": \.\.\.\} \(in /,
    );
    expect(
      await refusal([
        { name: 'alice', file: files.alice },
        { name: 3, file: files.bob },
      ]),
    ).toMatch(
      /^--config adminTokens\[1\]\.name: expected 1 to 64 letters, digits, dots, dashes or underscores, got 3 \(in /,
    );
    expect(await refusal([{ file: files.alice }])).toMatch(
      /^--config adminTokens\[0\]\.name: expected 1 to 64 .*, got undefined \(in /,
    );
    expect(await refusal([{ name: 'alice', file: 5 }])).toMatch(
      /^--config adminTokens\[0\]\.file: expected a file path \(in /,
    );
    expect(await refusal([{ name: 'alice', file: ' ' }])).toMatch(
      /^--config adminTokens\[0\]\.file: expected a file path \(in /,
    );
    expect(await refusal([{ name: 'admin', file: files.alice }], { 'admin-token-file': files.admin })).toMatch(
      /^adminTokens: the name "admin" is the token of --admin-token-file/,
    );
    // Named tokens alone turn the admin API on, on its own listener too.
    const config = buildServerConfig(
      {
        config: await configFile({ adminTokens: [{ name: 'alice', file: files.alice }] }),
        'admin-listen': '127.0.0.1:0',
      },
      {},
    );
    expect(config.adminTokens).toEqual([{ name: 'alice', file: files.alice }]);
  });

  it('serve: JSON log lines with actor, action and target; a reload takes a token away', async () => {
    const files = await tokenFiles();
    const dir = await cleanup.tempDir('tempmail-admin-tokens-');
    const file = join(dir, 'serve.json');
    const settings = {
      dataDir: join(dir, 'data'),
      logFormat: 'json',
      adminTokens: [
        { name: 'alice', file: files.alice },
        { name: 'bob', file: files.bob },
      ],
    };
    await writeFile(file, JSON.stringify(settings));
    const serve = cleanup.defer(await startServeProcess(['--config', file]), (p) => stopServe(p, 'SIGKILL'));
    expect(
      (await call(serve.baseUrl, '/admin/block', { ...as('bob'), form: { kind: 'ip', value: '203.0.113.0/24' } }))
        .status,
    ).toBe(200);
    const line = await waitFor(
      () =>
        serve
          .stderr()
          .split('\n')
          .find((l) => l.includes('"admin.action"')),
      { message: 'the admin action in the log' },
    );
    expect(JSON.parse(line)).toMatchObject({
      level: 'info',
      event: 'admin.action',
      actor: 'bob',
      action: 'block',
      target: 'ip 203.0.113.0/24',
      result: 'done',
    });

    await writeFile(file, JSON.stringify({ ...settings, adminTokens: [{ name: 'alice', file: files.alice }] }));
    const before = serve.stderr().length;
    serve.child.kill('SIGHUP');
    await waitFor(() => /config reloaded/.test(serve.stderr().slice(before)), { message: 'the reload' });
    expect(serve.stderr().slice(before)).toContain('adminTokens alice, bob -> alice');
    expect((await call(serve.baseUrl, '/admin/stats', as('bob'))).status).toBe(401);
    expect((await call(serve.baseUrl, '/admin/stats', as('alice'))).status).toBe(200);
    for (const token of Object.values(TOKENS)) expect(serve.stderr()).not.toContain(token);
  });
});
