/**
 * How long a delivery holds its session's row lock on Postgres: the time that queues every other
 * delivery to the same address, in every instance. `senders` deliver back to back into one session of
 * an in-process PostgresStore (the project's own, on the figure's durable cluster), each message parsed
 * once beforehand, so what is timed is the store alone: from the row locks taken to the end of COMMIT,
 * per batch (the store's onBatch), summed and divided by the deliveries. Grouped: the store as `serve`
 * runs it; alone: batches of one (`batch: { deliveries: 1 }`), a transaction and a COMMIT per delivery.
 */
import { randomBytes } from 'node:crypto';
import { parseMessage } from '../../src/server/mail/mime';
import type { BatchReport } from '../../src/server/store/postgres/delivery/deliver';
import { PostgresStore } from '../../src/server/store/postgres/postgres-store';
import { notification } from '../seed/mail-samples';

export interface LockHold {
  /** Lock hold summed over batches / deliveries, ms. */
  perDeliveryMs: number;
  /** Deliveries per batch, mean. */
  meanBatch: number;
  /** Deliveries a second, wall time. */
  perSecond: number;
}

export async function lockHold(
  url: string,
  options: { deliveries: number; senders: number; grouped: boolean },
): Promise<LockHold> {
  const batches: BatchReport[] = [];
  const store = new PostgresStore({
    url,
    poolSize: options.senders,
    batch: options.grouped ? undefined : { deliveries: 1 },
    onBatch: (r) => batches.push(r),
  });
  await store.open();
  try {
    const id = randomBytes(16).toString('hex');
    const local = `hold-${id.slice(0, 8)}`;
    const now = Date.now();
    await store.putSession({
      id,
      tokenHash: randomBytes(32).toString('hex'),
      email: `${local}@tempmail.test`,
      addressKey: `${local}@tempmail.test`,
      localPart: local,
      domain: 'tempmail.test',
      kind: 'domain',
      extmailAccountId: null,
      createdAt: now,
      expiresAt: now + 3600_000,
    });
    const raw = Buffer.from(notification(`${local}@tempmail.test`, 'Your order has shipped', 1));
    const fields = await parseMessage(raw, 'sender@example.org');
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: options.senders }, async () => {
        while (next < options.deliveries) {
          next++;
          await store.deliver([id], { ...fields, raw, receivedAt: Date.now() }, Infinity);
        }
      }),
    );
    const ms = performance.now() - t0;
    const delivered = batches.reduce((n, b) => n + b.deliveries, 0);
    return {
      perDeliveryMs: batches.reduce((n, b) => n + b.lockMs, 0) / delivered,
      meanBatch: delivered / batches.length,
      perSecond: (options.deliveries / ms) * 1000,
    };
  } finally {
    await store.close();
  }
}
