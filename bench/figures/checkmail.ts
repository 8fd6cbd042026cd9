/**
 * checkmail_p99_ms_500 and checkmail_growth_5000_over_500: check-mail on `serve` under load.
 *
 * `serve` (the built program, its own process) runs on a seeded data dir with one inbox of 500
 * messages and one of 5,000 (bench/seed). 10 clients in this process, each on its own keep-alive
 * connection, send GET /check-mail?token=... back to back; a sample is one request, from sending it to
 * the last byte of the answer (status 200; no If-None-Match is sent, so each answer is the whole list,
 * what a client that does not cache gets). 2,000 requests at 500 messages and 1,000 at 5,000, after 10
 * per client to warm up. checkmail_growth_5000_over_500 is p99 at 5,000 over p99 at 500. With --quick:
 * inboxes of 100 and 1,000 (ten times the data all the same), 200 and 100 requests; the sizes are in
 * `checkmail_small_messages` / `checkmail_big_messages`. Baselines, same load, same run: GET /health
 * (`checkmail_health_p99_ms`), and the floor: node:http with nothing of ours (bench/harness/bare-http.mjs,
 * its own process) answering with the very bytes of the small inbox's check-mail, 2,000 requests just
 * before ours (`checkmail_bare_http_p99_ms_500`; ours over it: `checkmail_over_bare_http_500`). And how busy the cores were meanwhile: the share of the
 * wall time the main thread of `serve`, and of this process (the 10 clients), spent runnable but waiting
 * for a CPU (`checkmail_serve_runq_share_500`, `checkmail_clients_runq_share_500`, from schedstat).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Figure } from './figure';
import { CLIENTS, get, underLoad } from '../harness/http-load';
import { schedMs } from '../harness/proc';
import { startServe } from '../harness/serve-proc';
import { tempDir } from '../harness/temp';
import { round, summarize, summaryKeys } from '../harness/stats';
import { dataset } from '../seed/datasets';
import { checkMailInboxes } from '../seed/inboxes';

const BARE_SCRIPT = fileURLToPath(new URL('../harness/bare-http.mjs', import.meta.url));

interface BareHttp {
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts bench/harness/bare-http.mjs (node:http alone) as its own process on loopback, port 0, answering
 * every request with the bytes of `bodyFile`.
 */
function startBareHttp(bodyFile: string): Promise<BareHttp> {
  const child = spawn(process.execPath, [BARE_SCRIPT, bodyFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString('utf8')).slice(-2000)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`bare-http did not listen within 30 s: ${err}`));
    }, 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`bare-http exited (${code}) before listening: ${err}`));
    });
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /^HTTP (http:\/\/\S+\/)$/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ pid: child.pid!, baseUrl: m[1]!, stop });
    });
  });
}

/** p99 of `total` requests, same load, to node:http alone answering with `body` (the floor). */
async function bareFloor(body: Buffer, total: number, log: (line: string) => void): Promise<number> {
  const file = join(tempDir('tempmail-bench-bare-'), 'answer.json');
  writeFileSync(file, body);
  const bare = await startBareHttp(file);
  try {
    const s = summarize(await underLoad(new URL('check-mail', bare.baseUrl), total));
    log(
      `bare node:http, the same ${body.length} bytes, ${CLIENTS} clients: p50 ${s.p50.toFixed(1)} p99 ${s.p99.toFixed(1)} max ${s.max.toFixed(1)} ms`,
    );
    return s.p99;
  } finally {
    await bare.stop();
  }
}

export const checkMail: Figure = {
  name: 'checkmail',
  keys: ['checkmail_p99_ms_500', 'checkmail_growth_5000_over_500', 'checkmail_over_bare_http_500'],
  async run(ctx) {
    const [small, big] = ctx.quick ? [100, 1000] : [500, 5000];
    const data = await dataset(checkMailInboxes(small, big), ctx.log);
    const serve = await startServe({ dataDir: data.dataDir });
    ctx.defer(() => serve.stop());
    const urlOf = (token: string) => {
      const url = new URL('check-mail', serve.baseUrl);
      url.searchParams.set('token', token);
      return url;
    };
    const out: Record<string, number> = {};
    const health = summarize(await underLoad(new URL('health', serve.baseUrl), ctx.quick ? 200 : 2000));
    const p99: Record<string, number> = {};
    const runs = [
      ['500', 'small', small, ctx.quick ? 200 : 2000],
      ['5000', 'big', big, ctx.quick ? 100 : 1000],
    ] as const;
    for (const [label, inbox, expected, total] of runs) {
      const url = urlOf(data.inboxes[inbox]!.token);
      const answer = (await get(url, new Agent(), true)).body;
      const listed = (JSON.parse(answer.toString('utf8')) as { messages: unknown[] }).messages.length;
      if (listed !== expected) throw new Error(`the ${expected}-message inbox lists ${listed}`);
      if (label === '500') out.checkmail_bare_http_p99_ms_500 = round(await bareFloor(answer, total, ctx.log));
      const before = [schedMs(serve.pid), schedMs(process.pid)] as const;
      const t0 = performance.now();
      const s = summarize(await underLoad(url, total));
      const wall = performance.now() - t0;
      const [serveWait, clientsWait] = [
        schedMs(serve.pid).wait - before[0].wait,
        schedMs(process.pid).wait - before[1].wait,
      ];
      ctx.log(
        `check-mail, ${expected} messages, ${CLIENTS} clients: p50 ${s.p50.toFixed(1)} p99 ${s.p99.toFixed(1)} max ${s.max.toFixed(1)} ms; ` +
          `waiting for a CPU: serve ${Math.round((100 * serveWait) / wall)}%, clients ${Math.round((100 * clientsWait) / wall)}% of the time`,
      );
      p99[label] = s.p99;
      Object.assign(out, summaryKeys(`checkmail_ms_${label}`, s, true));
      if (label === '500') {
        out.checkmail_serve_runq_share_500 = round(serveWait / wall);
        out.checkmail_clients_runq_share_500 = round(clientsWait / wall);
      }
    }
    return {
      checkmail_p99_ms_500: round(p99['500']!),
      checkmail_over_bare_http_500: round(p99['500']! / out.checkmail_bare_http_p99_ms_500!),
      checkmail_growth_5000_over_500: round(p99['5000']! / p99['500']!),
      checkmail_p99_ms_5000: round(p99['5000']!),
      ...out,
      checkmail_health_p99_ms: round(health.p99),
      checkmail_small_messages: small,
      checkmail_big_messages: big,
    };
  },
};
