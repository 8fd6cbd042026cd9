/**
 * The one SMTP load script, run against our `serve` and against maildev alike: the same ~3 KB message,
 * `connections` connections opened first, then `messages` deliveries shared among them, each connection
 * sending its next message as soon as the previous one got its 250.
 */
import { dataPayload, SmtpConnection } from './smtp-client';
import { notification } from '../seed/mail-samples';

export interface LoadOptions {
  host: string;
  port: number;
  /** The recipient; with a list, connection i sends to to[i % to.length]. */
  to: string | readonly string[];
  connections: number;
  messages: number;
  /** The message sent to `to` (default: the ~3 KB notification). */
  message?: (to: string) => string;
}

export interface LoadResult {
  messages: number;
  ms: number;
  /** Per message, MAIL FROM to the final 250, ms. */
  latencies: number[];
}

export async function smtpLoad(options: LoadOptions): Promise<LoadResult> {
  const recipients = typeof options.to === 'string' ? [options.to] : options.to;
  const message = options.message ?? ((to: string) => notification(to, 'Your order has shipped', 1));
  const payloads = recipients.map((to) => dataPayload(message(to)));
  const conns = await Promise.all(
    Array.from({ length: options.connections }, () => SmtpConnection.open(options.host, options.port)),
  );
  const latencies: number[] = [];
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      conns.map(async (c, i) => {
        const to = recipients[i % recipients.length]!;
        const payload = payloads[i % payloads.length]!;
        while (next < options.messages) {
          next += 1;
          const start = performance.now();
          latencies.push((await c.send('sender@example.org', to, payload)) - start);
        }
      }),
    );
    return { messages: options.messages, ms: performance.now() - t0, latencies };
  } finally {
    await Promise.all(conns.map((c) => c.close()));
  }
}
