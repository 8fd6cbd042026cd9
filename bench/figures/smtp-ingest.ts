/**
 * smtp_vs_maildev: how many messages a second our `serve` stores durably over SMTP, over how many
 * maildev takes, with the same load script in the same run.
 *
 * Ours: `serve` (built program, own process) with its file store in a fresh temp data dir, one address
 * created over HTTP (`--inbox-limit 1000000` so the inbox never fills): 250 means the message is parsed,
 * written, fsync'd and renamed into place. Peer: maildev (bench/peer-maildev, pinned by its lock file),
 * writing each message to a temp mail directory without fsync. Load (bench/harness/smtp-load.ts): the
 * same ~3 KB message to that address, 10 connections, 3,000 messages a round, two rounds each, taken in
 * turns (maildev, ours, maildev, ours) after 200 untimed ones each; 300 messages and one round with
 * --quick. Messages a second = all messages over all rounds' time. Per-message latency (MAIL FROM to the
 * final 250) under the load is reported too, and so is each server's own CPU per message (user and kernel,
 * from /proc), which says what the ratio is made of.
 *
 * The notification is a plain message, which `serve` stores with its sender and subject read from the
 * header and parses when it is read (src/server/mail/quick-summary.ts). What a message that must be
 * parsed before its 250 costs is measured in the same turns: the same notification with its subject as
 * an encoded word (`smtp_parsed_msgs_per_s`, `smtp_parsed_vs_maildev`: a figure, not a goal).
 */
import type { Figure } from './figure';
import { ensureMaildev, startMaildev } from '../harness/maildev';
import { cpuSplitMs } from '../harness/proc';
import { startServe } from '../harness/serve-proc';
import { createInbox } from '../harness/service-calls';
import { smtpLoad, type LoadOptions } from '../harness/smtp-load';
import { encodedNotification } from '../seed/mail-samples';
import { round, summarize, summaryKeys } from '../harness/stats';
import { tempDir } from '../harness/temp';

const CONNECTIONS = 10;

type Who = 'ours' | 'parsed' | 'maildev';

export const smtpIngest: Figure = {
  name: 'smtp',
  keys: ['smtp_vs_maildev'],
  async run(ctx) {
    const messages = ctx.quick ? 300 : 3000;
    const rounds = ctx.quick ? 1 : 2;
    const bin = ensureMaildev(ctx.log);
    const maildev = await startMaildev(bin, tempDir('tempmail-bench-maildev-'));
    ctx.defer(() => maildev.stop());
    const serve = await startServe({ dataDir: tempDir('tempmail-bench-smtp-'), args: ['--inbox-limit', '1000000'] });
    ctx.defer(() => serve.stop());
    const to = (await createInbox(serve.baseUrl)).email;
    const ours = { host: serve.smtpHost, port: serve.smtpPort, to, connections: CONNECTIONS, messages };
    const targets: Record<Who, LoadOptions> = {
      ours,
      parsed: { ...ours, message: (rcpt) => encodedNotification(rcpt, 'Your order has shipped', 1) },
      maildev: { host: maildev.host, port: maildev.port, to, connections: CONNECTIONS, messages },
    };
    for (const t of Object.values(targets)) await smtpLoad({ ...t, messages: 200 });
    const pids = { ours: serve.pid, parsed: serve.pid, maildev: maildev.pid };
    const total = () => ({ n: 0, ms: 0, lat: [] as number[], user: 0, sys: 0 });
    const totals = { ours: total(), parsed: total(), maildev: total() };
    for (let r = 0; r < rounds; r++) {
      for (const who of ['maildev', 'ours', 'parsed'] as const) {
        const cpu0 = cpuSplitMs(pids[who]);
        const res = await smtpLoad(targets[who]);
        const cpu1 = cpuSplitMs(pids[who]);
        totals[who].n += res.messages;
        totals[who].ms += res.ms;
        totals[who].lat.push(...res.latencies);
        totals[who].user += cpu1.user - cpu0.user;
        totals[who].sys += cpu1.sys - cpu0.sys;
        ctx.log(
          `smtp ${who}: ${res.messages} messages in ${(res.ms / 1000).toFixed(1)} s (${((res.messages / res.ms) * 1000).toFixed(0)}/s)`,
        );
      }
    }
    const rate = (who: Who) => (totals[who].n / totals[who].ms) * 1000;
    // What the ratio is made of: each server's own CPU per message (its process, all threads), in user
    // space and in the kernel (creating a file is most of the kernel's share here).
    const perMessage = (who: Who, part: 'user' | 'sys') => Math.round((totals[who][part] / totals[who].n) * 1000);
    ctx.log(
      `smtp CPU per message: ours user ${perMessage('ours', 'user')} + sys ${perMessage('ours', 'sys')} µs, ` +
        `parsed before the 250 user ${perMessage('parsed', 'user')} + sys ${perMessage('parsed', 'sys')} µs, ` +
        `maildev user ${perMessage('maildev', 'user')} + sys ${perMessage('maildev', 'sys')} µs`,
    );
    return {
      smtp_vs_maildev: round(rate('ours') / rate('maildev')),
      smtp_msgs_per_s: round(rate('ours')),
      smtp_maildev_msgs_per_s: round(rate('maildev')),
      smtp_parsed_msgs_per_s: round(rate('parsed')),
      smtp_parsed_vs_maildev: round(rate('parsed') / rate('maildev')),
      smtp_parsed_cpu_us_per_msg_user: perMessage('parsed', 'user'),
      smtp_parsed_cpu_us_per_msg_sys: perMessage('parsed', 'sys'),
      smtp_messages: totals.ours.n,
      smtp_cpu_us_per_msg_user: perMessage('ours', 'user'),
      smtp_cpu_us_per_msg_sys: perMessage('ours', 'sys'),
      smtp_maildev_cpu_us_per_msg_user: perMessage('maildev', 'user'),
      smtp_maildev_cpu_us_per_msg_sys: perMessage('maildev', 'sys'),
      ...summaryKeys('smtp_ms', summarize(totals.ours.lat)),
      ...summaryKeys('smtp_maildev_ms', summarize(totals.maildev.lat)),
    };
  },
};
