/**
 * Mail under load for the multi-instance tests: `count` messages, each with a subject of its own, sent
 * over real SMTP by `concurrency` senders spread over several services. Each message's fate is kept:
 * acknowledged (250, and by which service) or not. With `retries`, a sender that hears a temporary
 * failure or loses the connection tries again (the next service in turn), as a real MTA with two MX
 * hosts does; without, each message gets one try.
 */
import type { SmtpTarget } from './service';
import { sendMail } from './service';

export interface LoadOptions {
  to: string;
  count: number;
  concurrency: number;
  /** Tries after the first (default 0). */
  retries?: number;
  /** Pause before a retry, ms (default 200). */
  retryDelayMs?: number;
  /** A prefix for the subjects (`<prefix> <n>`). */
  prefix?: string;
  /** Called after each acknowledgement, with the number acknowledged so far. */
  onAck?: (acked: number) => void;
}

export interface LoadResult {
  /** Every subject sent. */
  sent: string[];
  /** Subjects answered 250, with the index of the target that answered. */
  acked: Map<string, number>;
  /** Subjects never answered 250, with the last target tried and its failure. */
  failed: Map<string, { target: number; why: string }>;
  /** How many tries failed on the way (temporary answers, cut connections). */
  failedTries: number;
  /** Per sender, the subjects it had acknowledged, in the order of their 250s. */
  ackOrder: string[][];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the load to the end. */
export async function sendLoad(targets: readonly SmtpTarget[], options: LoadOptions): Promise<LoadResult> {
  const prefix = options.prefix ?? 'load';
  const sent = Array.from({ length: options.count }, (_, i) => `${prefix} ${i}`);
  const result: LoadResult = {
    sent,
    acked: new Map(),
    failed: new Map(),
    failedTries: 0,
    ackOrder: Array.from({ length: options.concurrency }, () => []),
  };
  let next = 0;
  const sender = async (worker: number) => {
    for (let i = next++; i < sent.length; i = next++) {
      const subject = sent[i]!;
      let target = (i + worker) % targets.length;
      for (let attempt = 0; ; attempt++) {
        try {
          const info = await sendMail(targets[target]!, { to: options.to, subject, text: `message ${i}` });
          if (!/^250 /.test(info.response)) throw new Error(`unexpected answer ${info.response}`);
          result.acked.set(subject, target);
          result.ackOrder[worker]!.push(subject);
          options.onAck?.(result.acked.size);
          break;
        } catch (error) {
          result.failedTries++;
          const why = error instanceof Error ? error.message : String(error);
          const code = (error as { responseCode?: number }).responseCode;
          // A permanent refusal (5xx) is a bug here: every address is live. Stop, so the test says so.
          if ((code !== undefined && code >= 500) || attempt >= (options.retries ?? 0)) {
            result.failed.set(subject, { target, why });
            break;
          }
          target = (target + 1) % targets.length;
          await pause(options.retryDelayMs ?? 200);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, w) => sender(w)));
  return result;
}

/** Subjects that occur more than once in `list`. */
export function duplicates(list: readonly string[]): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const s of list) (seen.has(s) ? twice : seen).add(s);
  return [...twice];
}
