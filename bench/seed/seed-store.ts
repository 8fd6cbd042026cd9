/**
 * Fills a data dir (or a Postgres database: seedStore) the way `serve` would have: the project's own mail
 * service on the project's own store (src/server), so sessions and messages are in the store's real format, each message parsed by
 * the same MIME code and written durably by the same store code as one that came in over SMTP. Only the
 * SMTP conversation is skipped (it is measured elsewhere), which makes 100,000 messages a minute's work
 * once, instead of a quarter of an hour.
 */
import { FileStore } from '../../src/server/store/file/file-store';
import type { Store } from '../../src/server/store/store';
import { createMailService } from '../../src/server/service/mail-service';
import { defaultServerConfig } from '../../src/server/config/server-config';

/** One batch of messages to an inbox; batches of an inbox are delivered in order. */
export interface Batch {
  count: number;
  /** The raw message number `i` (0-based, within the batch) to `to`. */
  message: (to: string, i: number) => string;
}

export interface InboxSpec {
  name: string;
  batches: Batch[];
}

export interface SeededInbox {
  email: string;
  /** The session's token: a bench-only secret, kept in the cache's manifest (never printed). */
  token: string;
  /** ISO time. */
  expiresAt: string;
  messages: number;
}

/** Deliveries in flight at once: enough to keep the disk busy while the parser works. */
const CONCURRENCY = 32;

/** Creates each inbox's session and delivers its messages; returns the sessions by inbox name. */
export async function seedDataDir(
  dataDir: string,
  inboxes: readonly InboxSpec[],
  lifetimeSeconds: number,
  progress: (line: string) => void,
): Promise<Record<string, SeededInbox>> {
  const store = new FileStore(dataDir);
  await store.open();
  return seedStore(store, inboxes, lifetimeSeconds, progress, { dataDir });
}

/**
 * Creates each inbox's session in an opened `store` and delivers its messages; closes the store.
 * `config` overrides the service's settings (a data dir's path, say).
 */
export async function seedStore(
  store: Store,
  inboxes: readonly InboxSpec[],
  lifetimeSeconds: number,
  progress: (line: string) => void,
  config: { dataDir?: string; databaseUrl?: string } = {},
): Promise<Record<string, SeededInbox>> {
  // No inbox limit: the stores enforce it where a message is stored, and the check-mail inbox holds 5,000.
  const service = createMailService({
    store,
    config: {
      ...defaultServerConfig(),
      ...config,
      lifetimeSeconds,
      createPerMinute: 1_000_000,
      inboxLimit: Number.MAX_SAFE_INTEGER,
    },
  });
  const out: Record<string, SeededInbox> = {};
  const total = inboxes.reduce((n, inbox) => n + inbox.batches.reduce((m, b) => m + b.count, 0), 0);
  let done = 0;
  let reported = 0;
  const started = performance.now();
  try {
    for (const inbox of inboxes) {
      const s = await service.createSession({ clientAddress: '127.0.0.1' });
      out[inbox.name] = { email: s.email, token: s.token, expiresAt: s.expiresAt.toISOString(), messages: 0 };
    }
    // The batch number `b` of every inbox goes before batch b + 1 of any, so "newest" is well defined.
    const rounds = Math.max(...inboxes.map((i) => i.batches.length));
    for (let b = 0; b < rounds; b++) {
      const jobs: { to: string; name: string; make: () => string }[] = [];
      for (const inbox of inboxes) {
        const batch = inbox.batches[b];
        const to = out[inbox.name]!.email;
        for (let i = 0; batch && i < batch.count; i++)
          jobs.push({ to, name: inbox.name, make: () => batch.message(to, i) });
      }
      let next = 0;
      const worker = async () => {
        while (next < jobs.length) {
          const job = jobs[next++]!;
          const { delivered } = await service.deliver({ raw: Buffer.from(job.make(), 'utf8'), recipients: [job.to] });
          if (delivered !== 1) throw new Error(`seeding: a message to ${job.to} was not stored`);
          out[job.name]!.messages += 1;
          done += 1;
          if (done - reported >= 10_000) {
            reported = done;
            progress(
              `seeded ${done} of ${total} messages (${Math.round((done / (performance.now() - started)) * 1000)}/s)`,
            );
          }
        }
      };
      // Order within a batch does not matter (ids are handed out as stores finish).
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    }
  } finally {
    await service.close();
  }
  return out;
}
