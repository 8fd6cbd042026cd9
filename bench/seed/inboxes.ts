/** The seeded data dirs the figures use (see datasets.ts for the cache, seed-store.ts for how). */
import type { DatasetSpec } from './datasets';
import { newsletter, notification } from './mail-samples';

/** Inboxes the app opens: under a day, so the header's countdown ticks as it does for any address. */
const APP_LIFETIME_HOURS = 23;
/** Inboxes only the service reads: a cached seed stays usable for months. */
const SERVICE_LIFETIME_HOURS = 300 * 24;

/** Subjects that tell messages apart on screen: `Order 00042 shipped`. */
export const orderSubject = (i: number) => `Order ${String(i).padStart(5, '0')} shipped`;

/** The big inbox with --quick: small enough to seed in seconds on a clean clone (CI). */
export const QUICK_BIG = 2_000;

/** A 20-message inbox and a 10,000-message one (keys, memory). */
export function listInboxes(bigCount: number): DatasetSpec {
  return {
    name: `lists-20-${bigCount}`,
    lifetimeHours: APP_LIFETIME_HOURS,
    inboxes: [
      { name: 'small', batches: [{ count: 20, message: (to, i) => notification(to, orderSubject(i), i) }] },
      { name: 'big', batches: [{ count: bigCount, message: (to, i) => notification(to, orderSubject(i), i) }] },
    ],
  };
}

/** How many small messages sit above the newsletters: the app fetches this many newest unread bodies ahead. */
export const DECOYS = 5;

/**
 * `count` 2 MB HTML newsletters, then DECOYS small notifications on top (newer). The app prefetches the
 * bodies of the newest unread few; the decoys are those, so every newsletter is fetched when opened.
 */
export function newsletterInbox(count: number): DatasetSpec {
  return {
    name: `newsletters-${count}`,
    lifetimeHours: APP_LIFETIME_HOURS,
    inboxes: [
      {
        name: 'news',
        batches: [
          { count, message: (to, i) => newsletter(to, `Newsletter ${count - i}`, count - i) },
          { count: DECOYS, message: (to, i) => notification(to, `Notice ${i}`, i) },
        ],
      },
    ],
  };
}

/** One inbox of `small` messages and one of `big` (check-mail under load: 500 and 5,000). */
export function checkMailInboxes(small: number, big: number): DatasetSpec {
  return {
    name: `checkmail-${small}-${big}`,
    lifetimeHours: SERVICE_LIFETIME_HOURS,
    inboxes: [
      { name: 'small', batches: [{ count: small, message: (to, i) => notification(to, orderSubject(i), i) }] },
      { name: 'big', batches: [{ count: big, message: (to, i) => notification(to, orderSubject(i), i) }] },
    ],
  };
}

/** `total` messages in inboxes of 500 (the default inbox limit), as a busy team service holds them. */
export function serveStore(total: number): DatasetSpec {
  const inboxes = Math.ceil(total / 500);
  return {
    name: `serve-${total}`,
    lifetimeHours: SERVICE_LIFETIME_HOURS,
    inboxes: Array.from({ length: inboxes }, (_, n) => ({
      name: `s${n}`,
      batches: [
        {
          count: Math.min(500, total - n * 500),
          message: (to: string, i: number) => notification(to, orderSubject(i), i),
        },
      ],
    })),
  };
}
