/**
 * Issue 24, point 6: `providers --check` asks every provider of the order now, one cheap call each, and
 * says how it went in words, with the time it took; --json too; exit 0 when at least one works, 1 when
 * none does. Against the fakes: mail.tm limiting, TempMail.lol asking a captcha, Guerrilla Mail down (a
 * refused connection), a web page where the tempmail service should be; then all of them answering.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../../client/fixture-server';
import { startTestService, type TestService } from '../../harness/service';
import { startGuerrillaFake, type GuerrillaFake } from '../../providers/guerrilla-fake';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';
import { startTempmaillolFake, type TempmaillolFake } from '../../providers/tempmaillol-fake';
import { makeRunner, type Runner } from '../run';

let mailtm: MailtmFake;
let lolBlocked: TempmaillolFake;
let lol: TempmaillolFake;
let guerrilla: GuerrillaFake;
let site: FixtureServer;
let svc: TestService;
let downUrl: string;
let r: Runner;

beforeAll(async () => {
  mailtm = await startMailtmFake();
  lolBlocked = await startTempmaillolFake({ captcha: true });
  lol = await startTempmaillolFake();
  guerrilla = await startGuerrillaFake();
  svc = await startTestService();
  site = await startFixtureServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<!doctype html><html><body>Not here</body></html>');
  });
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  downUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}/`;
  await new Promise((resolve) => probe.close(resolve));
  r = makeRunner();
  mkdirSync(join(r.home, 'config'), { recursive: true, mode: 0o700 });
});
afterAll(async () => {
  r.cleanup();
  for (const s of [mailtm, lolBlocked, lol, guerrilla, site, svc]) await s.close();
});

const configure = (providers: Record<string, { baseUrl: string }>) =>
  writeFileSync(join(r.home, 'config', 'config.json'), JSON.stringify({ providers }), { mode: 0o600 });

it('none working: each verdict in words, and exit 1', async () => {
  configure({
    mailtm: { baseUrl: mailtm.baseUrl },
    tempmaillol: { baseUrl: lolBlocked.baseUrl },
    guerrilla: { baseUrl: downUrl },
    tempmail: { baseUrl: site.baseUrl },
  });
  mailtm.failNext(429, 1, 30, 'domains');
  const res = await r.run('providers', ['--check']);
  expect(res.code).toBe(1);
  const rows = res.stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.split('\t'));
  expect(rows.map((c) => [c[0], c[1], c[2]])).toEqual([
    ['mailtm', mailtm.baseUrl, 'rate-limited'],
    ['tempmaillol', lolBlocked.baseUrl, 'blocked'],
    ['guerrilla', downUrl, 'down'],
    ['tempmail', site.baseUrl, 'not this kind of service'],
  ]);
  for (const c of rows) expect(c[3]).toMatch(/^\d+ ms$/);
  expect(rows[1]![4]).toContain('captcha');
  expect(rows[2]![4]).toBe('The service is unreachable (connection refused)');
  expect(res.stderr).toBe('No provider answers now: tempmail-tui serve runs a service of your own\n');
});

it('all working: --json, exit 0; one cheap call each', async () => {
  configure({
    mailtm: { baseUrl: mailtm.baseUrl },
    tempmaillol: { baseUrl: lol.baseUrl },
    guerrilla: { baseUrl: guerrilla.baseUrl },
    tempmail: { baseUrl: svc.baseUrl },
  });
  const before = { mailtm: mailtm.log.length, lol: lol.log.length, guerrilla: guerrilla.log.length };
  const res = await r.run('providers', ['--check', '--json']);
  expect(res.code, res.stderr).toBe(0);
  const out = JSON.parse(res.stdout) as {
    providers: { name: string; verdict: string; latencyMs: number; label: string }[];
    working: number;
  };
  expect(out.working).toBe(4);
  expect(out.providers.map((p) => [p.name, p.label, p.verdict])).toEqual([
    ['mailtm', 'mail.tm', 'ok'],
    ['tempmaillol', 'TempMail.lol', 'ok'],
    ['guerrilla', 'Guerrilla Mail', 'ok'],
    ['tempmail', 'tempmail', 'ok'],
  ]);
  expect(mailtm.log.length - before.mailtm).toBe(1);
  expect(lol.log.length - before.lol).toBe(1);
  expect(guerrilla.log.length - before.guerrilla).toBe(1);
  // Nothing was made at TempMail.lol: its probe asks after an inbox that does not exist.
  expect(lol.inboxes()).toEqual([]);
});
