/**
 * `--address` with two live saved addresses. With only one saved, "the newest" and "the one asked for"
 * are the same address and a command that ignored --address would still pass; here the mail goes to the
 * OLDER address only, so every command must really pick by --address to see it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../src/state/saved-sessions';
import { EXIT } from '../../src/scripting/io';
import { sendMail, startTestService, type TestService } from '../harness/service';
import { waitFor } from '../harness/wait';
import { makeRunner, type RunResult, type Runner } from './run';

let svc: TestService;
let r: Runner;
let older: string;
let newer: string;

beforeAll(async () => {
  svc = await startTestService({ createPerMinute: 1000 });
  r = makeRunner();
  const base = ['--base-url', svc.baseUrl, '-q'];
  older = (await r.run('new', [...base, '--prefix', 'older-pick'])).stdout.trim();
  newer = (await r.run('new', [...base, '--prefix', 'newer-pick'])).stdout.trim();
});
afterAll(async () => {
  expect(r.leakedTokens()).toEqual([]);
  r.cleanup();
  await svc.close();
});

describe('--address with two live saved addresses', () => {
  it('both are saved, the newer one is the default', () => {
    expect(older).toMatch(/^older-pick@/);
    expect(newer).toMatch(/^newer-pick@/);
    expect(
      openSavedSessions({ env: r.env })
        .listLive()
        .map((s) => s.email),
    ).toEqual([newer, older]);
  });

  it('wait --address <older> sees mail to the older address; list, read and the default pick agree', async () => {
    // `wait` first: it only counts mail that arrives after its baseline, so the mail goes out once it says so.
    const running = r.run('wait', ['--address', older, '--print', 'code', '--timeout', '10', '--interval', '0.2']);
    await waitFor(() => running.live.stderr.includes('Waiting for') || running.live.code !== -1, {
      message: 'wait to start',
    });
    expect(running.live.stderr).toContain(`Waiting for a code at ${older}`);
    await sendMail(svc, {
      from: 'Acme Accounts <accounts@acme.test>',
      to: older,
      subject: 'Your Acme verification code',
      text: 'Your verification code is 640215. It expires in 10 minutes.\n',
    });
    const waited: RunResult = await running;
    expect(waited).toMatchObject({ code: 0, stdout: '640215\n' });

    const listed = await r.run('list', ['--address', older]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const [id, , from, subject] = lines[0]!.split('\t');
    expect(id).toMatch(/^\d+$/);
    expect(from).toBe('Acme Accounts <accounts@acme.test>');
    expect(subject).toBe('Your Acme verification code');
    const listedJson = JSON.parse((await r.run('list', ['--address', older, '--json'])).stdout);
    expect(listedJson.address).toBe(older);
    expect(listedJson.messages.map((m: { id: number }) => m.id)).toEqual([Number(id)]);

    // Plain `list` works on the newest address, which got nothing.
    const plain = await r.run('list', []);
    expect(plain).toMatchObject({ code: 0, stdout: '' });
    expect(plain.stderr).toBe(`No messages yet for ${newer}\n`);

    const read = await r.run('read', [id!, '--address', older]);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('Subject: Your Acme verification code\n');
    expect(read.stdout).toContain('Code: 640215\n');
    expect(JSON.parse((await r.run('read', [id!, '--address', older, '--json'])).stdout)).toMatchObject({
      id: Number(id),
      to: [older],
      code: '640215',
    });
    // The same id asked of the newest address is not found there: the message belongs to the older one.
    const wrongInbox = await r.run('read', [id!]);
    expect(wrongInbox).toMatchObject({ code: EXIT.failed, stdout: '' });
    expect(wrongInbox.stderr).toMatch(/^tempmail-tui read: /);
  });

  it('--address matches case-insensitively and trims', async () => {
    const res = await r.run('list', ['--address', ` ${older.toUpperCase()} `, '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).address).toBe(older);
  });

  it('an unknown --address is exit 1 (not found) with the address named, for list, read and wait', async () => {
    const unknown = 'nobody-here@tempmail.test';
    for (const [command, args] of [
      ['list', []],
      ['read', ['1']],
      ['wait', ['--timeout', '1']],
    ] as const) {
      const res = await r.run(command, [...args, '--address', unknown]);
      expect(res.code, command).toBe(EXIT.failed);
      expect(res.stdout, command).toBe('');
      expect(res.stderr, command).toBe(
        `tempmail-tui ${command}: "${unknown}" is not a saved live address; see \`tempmail-tui new\`\n`,
      );
    }
  });
});
