/**
 * RCPT's recent answers on Postgres (src/server/store/postgres/recipients/recent-recipients.ts), on their own with
 * a clock the test moves: kept only while the mail notices are heard, for RECENT_MS, never across a
 * forgetting, counted on by this instance's deliveries, and bounded.
 */
import { describe, expect, it } from 'vitest';
import { RECENT_MS, RecentRecipients } from '../../../src/server/store/postgres/recipients/recent-recipients';
import type { RecipientInbox } from '../../../src/server/store/store';
import { sessionRecord } from './store-suite';

function setup() {
  let now = 1000;
  const recent = new RecentRecipients(RECENT_MS, () => now);
  recent.listening(true);
  const inbox = (messages = 0): RecipientInbox => ({ session: sessionRecord(), messages });
  return { recent, inbox, advance: (ms: number) => (now += ms) };
}

describe('RCPT recent answers', () => {
  it('keeps a found address for RECENT_MS, as a copy marked recent', () => {
    const { recent, inbox, advance } = setup();
    const found = inbox(2);
    recent.keep(found.session.addressKey, found, recent.mark());
    const first = recent.get(found.session.addressKey)!;
    expect(first).toEqual({ ...found, recent: true });
    first.session.email = 'changed@tempmail.test';
    first.messages = 99;
    expect(recent.get(found.session.addressKey)).toEqual({ ...found, recent: true });
    advance(RECENT_MS - 1);
    expect(recent.get(found.session.addressKey)).toBeDefined();
    advance(1);
    expect(recent.get(found.session.addressKey)).toBeUndefined();
  });

  it('keeps nothing unless the notices are heard, and forgets everything when they stop', () => {
    const { recent, inbox } = setup();
    const a = inbox();
    recent.listening(false);
    recent.keep(a.session.addressKey, a, recent.mark());
    expect(recent.get(a.session.addressKey)).toBeUndefined();
    recent.listening(true);
    recent.keep(a.session.addressKey, a, recent.mark());
    expect(recent.get(a.session.addressKey)).toBeDefined();
    recent.listening(false);
    expect(recent.get(a.session.addressKey)).toBeUndefined();
    // Two listeners: one stopping forgets all, the other still lets answers be kept.
    recent.listening(true);
    recent.listening(true);
    recent.listening(false);
    recent.keep(a.session.addressKey, a, recent.mark());
    expect(recent.get(a.session.addressKey)).toBeDefined();
  });

  it('does not keep an answer read while something was forgotten or its session got mail', () => {
    const { recent, inbox } = setup();
    const a = inbox();
    const b = inbox();
    for (const forget of [
      () => recent.forget(['any id']),
      () => recent.forgetHashes(['any hash']),
      () => recent.forgetAddress('any@tempmail.test'),
      () => recent.clear(),
      // Mail into a's own session, here or elsewhere: a's answer may predate it.
      () => recent.stored([a.session.id]),
      () => recent.storedElsewhere([a.session.tokenHash]),
    ]) {
      const sent = recent.mark();
      forget();
      recent.keep(a.session.addressKey, a, sent);
      expect(recent.get(a.session.addressKey)).toBeUndefined();
    }
    recent.keep(b.session.addressKey, b, recent.mark());
    expect(recent.get(b.session.addressKey)).toBeDefined();
  });

  it('forgets by session id, token hash and address; counts this instance deliveries', () => {
    const { recent, inbox } = setup();
    const [a, b, c] = [inbox(1), inbox(), inbox()];
    for (const x of [a, b, c]) recent.keep(x.session.addressKey, x, recent.mark());
    recent.stored([a.session.id, a.session.id, 'unknown']);
    expect(recent.get(a.session.addressKey)?.messages).toBe(3);
    recent.forget([a.session.id]);
    recent.forgetHashes([b.session.tokenHash]);
    recent.forgetAddress(c.session.addressKey);
    for (const x of [a, b, c]) expect(recent.get(x.session.addressKey)).toBeUndefined();
    // A newer session kept for the same address: the older one's id no longer counts there.
    const newer = { session: { ...sessionRecord(), addressKey: a.session.addressKey }, messages: 0 };
    recent.keep(a.session.addressKey, a, recent.mark());
    recent.keep(a.session.addressKey, newer, recent.mark());
    recent.stored([a.session.id]);
    recent.forget([a.session.id]);
    expect(recent.get(a.session.addressKey)).toEqual({ ...newer, recent: true });
  });

  it("keeps an answer across other sessions' mail; mail elsewhere into its own forgets it", () => {
    const { recent, inbox } = setup();
    const [b, c] = [inbox(), inbox()];
    const sent = recent.mark();
    recent.stored([b.session.id]);
    recent.storedElsewhere([b.session.tokenHash]);
    recent.keep(c.session.addressKey, c, sent);
    expect(recent.get(c.session.addressKey)).toBeDefined();
    // Read after the mail: kept. Mail elsewhere then forgets it (its count moved by an unknown number).
    recent.keep(b.session.addressKey, b, recent.mark());
    expect(recent.get(b.session.addressKey)).toBeDefined();
    recent.storedElsewhere([b.session.tokenHash]);
    expect(recent.get(b.session.addressKey)).toBeUndefined();
  });

  it('remembers the mail of 10,000 sessions at most for the reads in flight, then refuses all of those', () => {
    const { recent, inbox } = setup();
    const a = inbox();
    const sent = recent.mark();
    for (let i = 0; i <= 10_000; i++) recent.stored([`other-${i}`]);
    recent.keep(a.session.addressKey, a, sent);
    expect(recent.get(a.session.addressKey)).toBeUndefined();
    recent.keep(a.session.addressKey, a, recent.mark());
    expect(recent.get(a.session.addressKey)).toBeDefined();
  });

  it('keeps 10,000 addresses at most, forgetting the oldest first', () => {
    const { recent, inbox } = setup();
    const all = Array.from({ length: 10_005 }, () => inbox());
    for (const x of all) recent.keep(x.session.addressKey, x, recent.mark());
    const kept = all.filter((x) => recent.get(x.session.addressKey) !== undefined);
    expect(kept).toHaveLength(10_000);
    expect(kept[0]).toBe(all[5]);
  });
});
