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
 * `checkmail_small_messages` / `checkmail_big_messages`. Baseline, same load, same run: GET /health
 * (`checkmail_health_p99_ms`).
 */
import { Agent } from 'node:http';
import type { Figure } from './figure';
import { CLIENTS, get, underLoad } from '../harness/http-load';
import { startServe } from '../harness/serve-proc';
import { round, summarize, summaryKeys } from '../harness/stats';
import { dataset } from '../seed/datasets';
import { checkMailInboxes } from '../seed/inboxes';

export const checkMail: Figure = {
  name: 'checkmail',
  keys: ['checkmail_p99_ms_500', 'checkmail_growth_5000_over_500'],
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
      const listed = (JSON.parse((await get(url, new Agent(), true)).body.toString('utf8')) as { messages: unknown[] }).messages.length;
      if (listed !== expected) throw new Error(`the ${expected}-message inbox lists ${listed}`);
      const s = summarize(await underLoad(url, total));
      ctx.log(`check-mail, ${expected} messages, ${CLIENTS} clients: p50 ${s.p50.toFixed(1)} p99 ${s.p99.toFixed(1)} max ${s.max.toFixed(1)} ms`);
      p99[label] = s.p99;
      Object.assign(out, summaryKeys(`checkmail_ms_${label}`, s, true));
    }
    return {
      checkmail_p99_ms_500: round(p99['500']!),
      checkmail_growth_5000_over_500: round(p99['5000']! / p99['500']!),
      checkmail_p99_ms_5000: round(p99['5000']!),
      ...out,
      checkmail_health_p99_ms: round(health.p99),
      checkmail_small_messages: small,
      checkmail_big_messages: big,
    };
  },
};
