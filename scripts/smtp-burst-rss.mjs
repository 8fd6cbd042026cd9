#!/usr/bin/env node
/**
 * How much memory a burst of concurrent large messages takes from `serve`: starts the built program
 * (dist/cli.js) on a temp data dir, sends N messages of SIZE bytes at once over real SMTP, and reports
 * the service's RSS before (idle) and at its peak (VmHWM), with how many were stored and how many got 451.
 *
 *   node scripts/smtp-burst-rss.mjs [N=20] [SIZE=10000000] [-- extra serve flags, e.g. --config FILE]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';

const [count = '20', size = '10000000', ...rest] = process.argv.slice(2);
const extra = rest[0] === '--' ? rest.slice(1) : rest;
const N = Number(count);
const SIZE = Number(size);
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'tempmail-rss-'));
const child = spawn(
  process.execPath,
  [cli, 'serve', '--data-dir', dir, '--http-port', '0', '--smtp-port', '0', '--inbox-limit', '100000', ...extra],
  { stdio: ['ignore', 'pipe', 'pipe'] },
);
let out = '';
let err = '';
child.stdout.on('data', (c) => (out += c));
child.stderr.on('data', (c) => (err += c));
while (!/^SMTP /m.test(out)) {
  if (child.exitCode !== null) throw new Error(`serve exited: ${err}`);
  await new Promise((r) => setTimeout(r, 20));
}
const baseUrl = /^HTTP (\S+)$/m.exec(out)[1];
const [, host, port] = /^SMTP (\S+):(\d+)$/m.exec(out);
const status = async () =>
  Object.fromEntries((await readFile(`/proc/${child.pid}/status`, 'utf8')).split('\n').map((l) => l.split(/:\s+/)));
const mb = (kb) => `${(parseInt(kb, 10) / 1024).toFixed(0)} MB`;

const session = await (await fetch(new URL('create-session', baseUrl), { method: 'POST' })).json();
const idle = (await status()).VmRSS;
// Text that does not compress into anything clever: random base64 lines, as a big attachment would be.
const line = () => Buffer.from(Array.from({ length: 57 }, () => Math.floor(Math.random() * 256))).toString('base64');
const body = Array.from({ length: Math.ceil(SIZE / 78) }, line)
  .join('\r\n')
  .slice(0, SIZE - 200);
const results = await Promise.allSettled(
  Array.from({ length: N }, async (_, i) => {
    const t = nodemailer.createTransport({
      host,
      port: Number(port),
      secure: false,
      ignoreTLS: true,
      socketTimeout: 300_000,
    });
    try {
      return await t.sendMail({
        envelope: { from: 'load@example.org', to: session.email },
        raw: `From: load@example.org\r\nTo: ${session.email}\r\nSubject: burst ${i}\r\n\r\n${body}\r\n`,
      });
    } finally {
      t.close();
    }
  }),
);
const peak = (await status()).VmHWM;
const stored = results.filter((r) => r.status === 'fulfilled').length;
const codes = results.flatMap((r) => (r.status === 'rejected' ? [r.reason.responseCode ?? r.reason.code] : []));
const tally = {};
for (const c of codes) tally[c] = (tally[c] ?? 0) + 1;
console.log(
  `${N} concurrent messages of ${(SIZE / 1e6).toFixed(1)} MB: stored ${stored}, refused ${JSON.stringify(tally)}`,
);
console.log(`serve RSS idle ${mb(idle)}, peak ${mb(peak)} (+${mb(String(parseInt(peak, 10) - parseInt(idle, 10)))})`);
child.kill('SIGTERM');
await new Promise((r) => child.once('close', r));
await rm(dir, { recursive: true, force: true });
