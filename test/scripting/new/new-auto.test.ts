/**
 * Issue 24, point 5: `new --provider auto` (and "provider": "auto" in config.json) makes the address on
 * the first provider of `providerOrder` that answers, saying on stderr which ones it passed and why; the
 * address remembers where it lives, so list finds it there. Here mail.tm is down (nothing listens at its
 * configured base URL), TempMail.lol asks for a captcha, and Guerrilla Mail answers.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';
import { startTempmaillolFake, type TempmaillolFake } from '../../providers/tempmaillol-fake';
import { makeRunner, type Runner } from '../run';

let guerrilla: GuerrillaFake;
let lol: TempmaillolFake;
let downUrl: string;
let r: Runner;

beforeAll(async () => {
  guerrilla = await startGuerrillaFake();
  lol = await startTempmaillolFake({ captcha: true });
  // A port that was just free: connections to it are refused (mail.tm "down").
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  downUrl = `http://127.0.0.1:${port}/`;
  r = makeRunner();
  mkdirSync(join(r.home, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(r.home, 'config', 'config.json'),
    JSON.stringify({
      providers: {
        mailtm: { baseUrl: downUrl },
        tempmaillol: { baseUrl: lol.baseUrl },
        guerrilla: { baseUrl: guerrilla.baseUrl },
      },
      providerOrder: ['mailtm', 'tempmaillol', 'guerrilla'],
    }),
    { mode: 0o600 },
  );
});
afterAll(async () => {
  r.cleanup();
  await guerrilla.close();
  await lol.close();
});

it('falls back along the order to the first that answers, saying why, and saves the address there', async () => {
  const made = await r.run('new', ['--provider', 'auto']);
  expect(made.code, made.stderr).toBe(0);
  const address = made.stdout.trim();
  expect(address).toMatch(/@guerrillamail\.com$/);
  const lines = made.stderr.trimEnd().split('\n');
  expect(lines[0]).toBe('trying mail.tm');
  expect(lines[1]).toBe('mail.tm: The service is unreachable (connection refused); trying TempMail.lol');
  expect(lines[2]).toBe(
    'TempMail.lol: TempMail.lol wants a captcha solved from this network (it asks some countries and networks), which a terminal cannot do: try another provider; trying Guerrilla Mail',
  );
  expect(lines[3]).toMatch(new RegExp(`^Saved ${address.replace('.', '\\.')} on Guerrilla Mail; expires in`));
  expect(
    openSavedSessions({ env: r.env })
      .listLive()
      .map((s) => [s.email, s.provider, s.baseUrl]),
  ).toEqual([[address, 'guerrilla', guerrilla.baseUrl]]);

  // It remembers where it lives: list, with auto still in effect, asks Guerrilla Mail.
  guerrilla.deliver(address, { from: 'Shop <hi@shop.example>', subject: 'Found you', body: '<p>hi</p>' });
  const listed = await r.run('list', ['--provider', 'auto', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout)).toMatchObject({ address, messages: [{ subject: 'Found you' }] });
});

it('"provider": "auto" in config.json does the same; when none answers, each reason is said', async () => {
  const config = {
    provider: 'auto',
    providers: { mailtm: { baseUrl: downUrl }, tempmaillol: { baseUrl: lol.baseUrl } },
    providerOrder: ['mailtm', 'tempmaillol'],
  };
  writeFileSync(join(r.home, 'config', 'config.json'), JSON.stringify(config), { mode: 0o600 });
  const failed = await r.run('new', []);
  expect(failed).toMatchObject({ code: 1, stdout: '' });
  expect(failed.stderr).toMatch(
    /^trying mail\.tm\nmail\.tm: The service is unreachable \(connection refused\); trying TempMail\.lol\ntempmail-tui new: no provider made an address \(mail\.tm: The service is unreachable \(connection refused\); TempMail\.lol: TempMail\.lol wants a captcha .*\); see tempmail-tui providers --check\n$/,
  );
});
