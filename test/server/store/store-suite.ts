/**
 * The one test suite every Store passes (inbucket's storage_suite.go): memory, file and Postgres. A
 * harness gives a fresh store and a way to "restart" it on the same data; a store that several services
 * can share (memory on one MemoryData, Postgres on one database) also gives a second one open at the
 * same time, and passes the part of the suite about sharing.
 */
import { describe, expect, it } from 'vitest';
import {
  StoreClosedError,
  UnknownSessionError,
  type NewMessage,
  type Store,
  type StoredSession,
} from '../../../src/server/store/store';

export interface StoreHarness {
  /** The current (opened) store. */
  store: Store;
  /** Closes the current store and opens a new one on the same data; `store` then is the new one. */
  reopen(): Promise<Store>;
  /** A second store open on the same data at the same time (as a second service), closed by cleanup. */
  twin?(): Promise<Store>;
  cleanup(): Promise<void>;
}

let counter = 0;

/** A session record with unique id, token hash and address. */
export function sessionRecord(overrides: Partial<StoredSession> = {}): StoredSession {
  counter++;
  const local = `user-${counter}`;
  return {
    id: `s${counter}x${Math.random().toString(16).slice(2, 10)}`,
    tokenHash: `hash-${counter}-${Math.random()}`,
    email: `${local}@tempmail.test`,
    addressKey: `${local}@tempmail.test`,
    localPart: local,
    domain: 'tempmail.test',
    kind: 'domain',
    extmailAccountId: null,
    createdAt: 1_800_000_000_000 + counter,
    expiresAt: 1_800_003_600_000,
    ...overrides,
  };
}

/** Every byte value, so a text-mangling store is caught. */
export const ALL_BYTES = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));

/** A message with hostile strings and binary parts. */
export function newMessage(overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    senderName: 'Evil \u202e Bank \u001b[2J',
    senderEmail: 'bank@example.test',
    subject: 'Hi \u0000 NUL \u007f DEL \u009b C1 \u001b]52;c;Zm9v\u0007 é 漢字 🎉',
    receivedAt: 1_800_000_100_000,
    to: ['a@tempmail.test', 'b@tempmail.test'],
    cc: [],
    text: 'line 1\r\nline 2 \u001b[31mred\u001b[0m\n',
    html: null,
    headers: { Subject: 'Hi', 'Message-ID': '<x@y>' },
    raw: Buffer.concat([Buffer.from('Subject: Hi\r\n\r\n'), ALL_BYTES]),
    attachments: [
      { filename: 'a.bin', contentType: 'application/octet-stream', bytes: ALL_BYTES },
      { filename: '../../etc/passwd \u001b[1m', contentType: 'text/plain', bytes: Buffer.from('hello') },
    ],
    ...overrides,
  };
}

/** A test body run on a fresh store from `make`, cleaned up however the body ends. */
/**
 * A message id as the interface and the client take it: a positive integer of at most 15 digits. The
 * memory and file stores count 1, 2, 3...; the Postgres store's come from the clock (migration 8).
 */
export function isMessageId(id: number): boolean {
  return Number.isSafeInteger(id) && id >= 1 && String(id).length <= 15;
}

export function storeTest(make: () => Promise<StoreHarness>) {
  return (fn: (h: StoreHarness) => Promise<void>) => async () => {
    const h = await make();
    try {
      await fn(h);
    } finally {
      await h.cleanup();
    }
  };
}

/**
 * Runs the shared suite against the stores `make` builds. `shared`: the store can be open in two services
 * at once (its harness has twin()); the file store cannot (one service per data dir, service.lock).
 */
export function runStoreSuite(
  name: string,
  make: () => Promise<StoreHarness>,
  options: { shared?: boolean } = {},
): void {
  describe(`Store suite: ${name}`, () => {
    const withStore = storeTest(make);

    it(
      'puts, gets and finds sessions by id, token hash and address',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        expect(await store.getSession(s.id)).toEqual(s);
        expect(await store.getSessionByTokenHash(s.tokenHash)).toEqual(s);
        expect(await store.findSessionByAddress(s.addressKey)).toEqual(s);
        expect(await store.listSessions()).toEqual([s]);
        expect(await store.countSessions()).toBe(1);
        expect(await store.getSession('nope')).toBeUndefined();
        expect(await store.getSessionByTokenHash('nope')).toBeUndefined();
        expect(await store.findSessionByAddress('nope@tempmail.test')).toBeUndefined();
      }),
    );

    it(
      'replaces a session put again under the same id',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const changed = { ...s, expiresAt: s.expiresAt + 1000, tokenHash: 'new-hash' };
        await store.putSession(changed);
        expect(await store.getSession(s.id)).toEqual(changed);
        expect(await store.getSessionByTokenHash('new-hash')).toEqual(changed);
        expect(await store.getSessionByTokenHash(s.tokenHash)).toBeUndefined();
        expect(await store.countSessions()).toBe(1);
      }),
    );

    it(
      'hands out copies: changing an answer does not change the store',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const got = (await store.getSession(s.id))!;
        got.email = 'changed';
        expect((await store.getSession(s.id))!.email).toBe(s.email);
        await store.addMessage(s.id, newMessage());
        const listed = await store.listMessages(s.id);
        listed[0]!.attachments[0]!.filename = 'changed';
        expect((await store.listMessages(s.id))[0]!.attachments[0]!.filename).toBe('a.bin');
      }),
    );

    it(
      'finds the newest session when two share an address, and the older again after a delete',
      withStore(async ({ store }) => {
        const old = sessionRecord({ addressKey: 'same@tempmail.test', createdAt: 1000 });
        const young = sessionRecord({ addressKey: 'same@tempmail.test', createdAt: 2000 });
        await store.putSession(young);
        await store.putSession(old);
        expect((await store.findSessionByAddress('same@tempmail.test'))!.id).toBe(young.id);
        await store.deleteSession(young.id);
        expect((await store.findSessionByAddress('same@tempmail.test'))!.id).toBe(old.id);
      }),
    );

    it(
      'assigns message ids that grow per session, independently',
      withStore(async ({ store }) => {
        const a = sessionRecord();
        const b = sessionRecord();
        await store.putSession(a);
        await store.putSession(b);
        const a1 = (await store.addMessage(a.id, newMessage())).id;
        const a2 = (await store.addMessage(a.id, newMessage())).id;
        const b1 = (await store.addMessage(b.id, newMessage())).id;
        const a3 = (await store.addMessage(a.id, newMessage())).id;
        for (const id of [a1, a2, b1, a3]) expect(isMessageId(id), String(id)).toBe(true);
        expect(a1 < a2 && a2 < a3).toBe(true);
        expect((await store.listMessages(a.id)).map((m) => m.id)).toEqual([a1, a2, a3]);
        expect((await store.listMessages(b.id)).map((m) => m.id)).toEqual([b1]);
        expect(await store.countMessages(a.id)).toBe(3);
        expect(await store.countMessages(b.id)).toBe(1);
      }),
    );

    it(
      'keeps every field, every raw byte and every attachment byte',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const input = newMessage({ html: '<p>&#27;[2J</p>', text: null, cc: ['c@x.test'] });
        const meta = await store.addMessage(s.id, input);
        const id = meta.id;
        expect(meta).toEqual({
          id,
          senderName: input.senderName,
          senderEmail: input.senderEmail,
          subject: input.subject,
          receivedAt: input.receivedAt,
          size: input.raw.length,
          attachments: [
            { id: 1, filename: 'a.bin', contentType: 'application/octet-stream', size: ALL_BYTES.length },
            { id: 2, filename: '../../etc/passwd \u001b[1m', contentType: 'text/plain', size: 5 },
          ],
        });
        const full = (await store.getMessage(s.id, id))!;
        expect(full).toEqual({
          ...meta,
          to: input.to,
          cc: ['c@x.test'],
          text: null,
          html: input.html,
          headers: input.headers,
        });
        expect((await store.rawMessage(s.id, id))!.equals(input.raw)).toBe(true);
        expect((await store.attachmentBytes(s.id, id, 1))!.equals(ALL_BYTES)).toBe(true);
        expect((await store.attachmentBytes(s.id, id, 2))!.toString()).toBe('hello');
        for (const bad of [0, 3, 1.5, -1, Number.NaN])
          expect(await store.attachmentBytes(s.id, id, bad)).toBeUndefined();
        expect(await store.getMessage(s.id, id + 1)).toBeUndefined();
        expect(await store.rawMessage(s.id, id + 1)).toBeUndefined();
        expect(await store.getMessage('nope', id)).toBeUndefined();
      }),
    );

    it(
      'deletes a message, and never hands its id out again',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const one = (await store.addMessage(s.id, newMessage())).id;
        const two = (await store.addMessage(s.id, newMessage())).id;
        expect(await store.deleteMessage(s.id, two)).toBe(true);
        expect(await store.deleteMessage(s.id, two)).toBe(false);
        expect(await store.deleteMessage('nope', one)).toBe(false);
        expect(await store.getMessage(s.id, two)).toBeUndefined();
        expect(await store.rawMessage(s.id, two)).toBeUndefined();
        expect(await store.attachmentBytes(s.id, two, 1)).toBeUndefined();
        const three = (await store.addMessage(s.id, newMessage())).id;
        expect(three).toBeGreaterThan(two);
        expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual([one, three]);
      }),
    );

    it(
      'refuses a message for an unknown session',
      withStore(async ({ store }) => {
        await expect(store.addMessage('nope', newMessage())).rejects.toBeInstanceOf(UnknownSessionError);
      }),
    );

    it(
      'deletes a session with its messages and frees its address',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const { id } = await store.addMessage(s.id, newMessage());
        expect(await store.deleteSession(s.id)).toBe(true);
        expect(await store.deleteSession(s.id)).toBe(false);
        expect(await store.getSession(s.id)).toBeUndefined();
        expect(await store.getSessionByTokenHash(s.tokenHash)).toBeUndefined();
        expect(await store.findSessionByAddress(s.addressKey)).toBeUndefined();
        expect(await store.listMessages(s.id)).toEqual([]);
        expect(await store.countMessages(s.id)).toBe(0);
        expect(await store.rawMessage(s.id, id)).toBeUndefined();
        expect(await store.countSessions()).toBe(0);
      }),
    );

    it(
      'gives concurrent adds distinct ids',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const metas = await Promise.all(Array.from({ length: 25 }, () => store.addMessage(s.id, newMessage())));
        expect(new Set(metas.map((m) => m.id)).size).toBe(25);
        expect((await store.listMessages(s.id)).map((m) => m.id)).toEqual(metas.map((m) => m.id).sort((a, b) => a - b));
        expect(await store.countMessages(s.id)).toBe(25);
      }),
    );

    it(
      'keeps a 5 MB message whole',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        const raw = Buffer.alloc(5 * 1024 * 1024, 0x41);
        raw.write('\r\n\u001b\u0000', 1000, 'latin1');
        const { id } = await store.addMessage(s.id, newMessage({ raw, html: 'x'.repeat(2_000_000) }));
        expect((await store.rawMessage(s.id, id))!.equals(raw)).toBe(true);
        expect((await store.getMessage(s.id, id))!.html!.length).toBe(2_000_000);
      }),
    );

    it(
      'refuses every call after close, and close is idempotent',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        await h.store.close();
        await h.store.close();
        await expect(h.store.putSession(sessionRecord())).rejects.toBeInstanceOf(StoreClosedError);
        await expect(h.store.getSession(s.id)).rejects.toBeInstanceOf(StoreClosedError);
        await expect(h.store.addMessage(s.id, newMessage())).rejects.toBeInstanceOf(StoreClosedError);
        await h.reopen();
      }),
    );

    it(
      'keeps sessions and messages, byte for byte, across a reopen',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        const input = newMessage();
        const { id } = await h.store.addMessage(s.id, input);
        await h.store.addMessage(s.id, newMessage({ subject: 'second', attachments: [] }));
        const before = { list: await h.store.listMessages(s.id), full: await h.store.getMessage(s.id, id) };
        const store = await h.reopen();
        expect(await store.getSession(s.id)).toEqual(s);
        expect(await store.getSessionByTokenHash(s.tokenHash)).toEqual(s);
        expect(await store.findSessionByAddress(s.addressKey)).toEqual(s);
        expect(await store.listMessages(s.id)).toEqual(before.list);
        expect(await store.getMessage(s.id, id)).toEqual(before.full);
        expect((await store.rawMessage(s.id, id))!.equals(input.raw)).toBe(true);
        expect((await store.attachmentBytes(s.id, id, 1))!.equals(ALL_BYTES)).toBe(true);
      }),
    );

    it(
      'keeps whether a message is to be parsed when read, across a reopen',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        const unparsed = {
          to: [],
          cc: [],
          text: null,
          html: null,
          headers: {},
          attachments: [],
          parseOnRead: true as const,
        };
        await h.store.addMessage(s.id, newMessage(unparsed));
        await h.store.deliver([s.id], newMessage({ subject: 'delivered', ...unparsed }), 10);
        await h.store.addMessage(s.id, newMessage());
        const ids = (await h.store.listMessages(s.id)).map((m) => m.id);
        const flags = async (store: Store) =>
          Promise.all(ids.map(async (id) => (await store.getMessage(s.id, id))?.parseOnRead));
        expect(await flags(h.store)).toEqual([true, true, undefined]);
        expect((await h.store.getMessage(s.id, ids[1]!))!.subject).toBe('delivered');
        expect(await flags(await h.reopen())).toEqual([true, true, undefined]);
      }),
    );

    it(
      'does not reuse the id of a deleted newest message after a reopen',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        const one = (await h.store.addMessage(s.id, newMessage())).id;
        const two = (await h.store.addMessage(s.id, newMessage())).id;
        const three = (await h.store.addMessage(s.id, newMessage())).id;
        await h.store.deleteMessage(s.id, three);
        await h.store.deleteMessage(s.id, two);
        let store = await h.reopen();
        const four = (await store.addMessage(s.id, newMessage())).id;
        expect(four).toBeGreaterThan(three);
        // Every message gone, then a restart: still no reuse.
        await store.deleteMessage(s.id, one);
        await store.deleteMessage(s.id, four);
        store = await h.reopen();
        expect((await store.addMessage(s.id, newMessage())).id).toBeGreaterThan(four);
      }),
    );

    it(
      'inserts a session only while no live session holds its address; an expired holder goes with its mail',
      withStore(async ({ store }) => {
        const now = 1_800_000_000_000;
        const first = sessionRecord({ addressKey: 'claim@tempmail.test', expiresAt: now + 1000 });
        expect(await store.insertSession(first, now)).toBe('created');
        const rival = sessionRecord({ addressKey: 'claim@tempmail.test', expiresAt: now + 5000 });
        expect(await store.insertSession(rival, now)).toBe('taken');
        expect(await store.getSession(rival.id)).toBeUndefined();
        await store.addMessage(first.id, newMessage());
        // At its expiry (expiresAt <= now) the address is free again, and the old session goes.
        expect(await store.insertSession(rival, now + 1000)).toBe('created');
        expect(await store.getSession(first.id)).toBeUndefined();
        expect(await store.listMessages(first.id)).toEqual([]);
        expect((await store.findSessionByAddress('claim@tempmail.test'))!.id).toBe(rival.id);
        expect(await store.countSessions()).toBe(1);
      }),
    );

    it(
      'lets one of many concurrent inserts for one address win',
      withStore(async ({ store }) => {
        const now = 1_800_000_000_000;
        const rivals = Array.from({ length: 8 }, () =>
          sessionRecord({ addressKey: 'race@tempmail.test', expiresAt: now + 1000 }),
        );
        const outcomes = await Promise.all(rivals.map((r) => store.insertSession(r, now)));
        expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
        expect(await store.countSessions()).toBe(1);
      }),
    );

    it(
      'delivers to several sessions at once, skipping the gone, under the inbox limit',
      withStore(async ({ store }) => {
        const a = sessionRecord();
        const b = sessionRecord();
        await store.putSession(a);
        await store.putSession(b);
        const first = await store.deliver([a.id, b.id, 'gone-session', a.id], newMessage(), 2);
        expect([...first.stored.keys()].sort()).toEqual([a.id, b.id].sort());
        const firstId = first.stored.get(a.id)!.id;
        expect(first.stored.get(a.id)).toMatchObject({ size: newMessage().raw.length });
        expect((await store.listMessages(a.id)).map((m) => m.id)).toEqual([firstId]);
        expect(first.full).toEqual([]);
        expect(first.gone).toEqual(['gone-session']);
        expect((await store.rawMessage(b.id, first.stored.get(b.id)!.id))!.equals(newMessage().raw)).toBe(true);
        const fills = (await store.addMessage(a.id, newMessage({ subject: 'fills a' }))).id;
        // a holds 2 = the limit: nothing is stored for anyone, b included.
        const second = await store.deliver([a.id, b.id], newMessage({ subject: 'late' }), 2);
        expect(second).toEqual({ stored: new Map(), full: [a.id], gone: [] });
        expect(await store.countMessages(b.id)).toBe(1);
        // Room again after a delete; ids go on where they were.
        await store.deleteMessage(a.id, firstId);
        const third = await store.deliver([a.id], newMessage(), 2);
        expect(third.stored.get(a.id)!.id).toBeGreaterThan(fills);
      }),
    );

    it(
      'keeps the inbox limit exact under concurrent deliveries',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        await store.addMessage(s.id, newMessage());
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => store.deliver([s.id], newMessage({ subject: `m${i}` }), 5)),
        );
        expect(results.filter((r) => r.stored.size === 1)).toHaveLength(4);
        expect(results.filter((r) => r.full.length === 1)).toHaveLength(8);
        expect(await store.countMessages(s.id)).toBe(5);
      }),
    );

    it(
      'purges expired sessions with their messages, and keeps the live ones',
      withStore(async ({ store }) => {
        const now = 1_800_000_000_000;
        const old = sessionRecord({ expiresAt: now - 1 });
        const edge = sessionRecord({ expiresAt: now });
        const live = sessionRecord({ expiresAt: now + 1 });
        for (const s of [old, edge, live]) await store.putSession(s);
        await store.addMessage(old.id, newMessage());
        expect(await store.purgeExpired(now)).toBe(2);
        expect((await store.listSessions()).map((s) => s.id)).toEqual([live.id]);
        expect(await store.listMessages(old.id)).toEqual([]);
        expect(await store.purgeExpired(now)).toBe(0);
      }),
    );

    it(
      'counts create-session hits in a sliding window per key; refused hits do not count',
      withStore(async ({ store }) => {
        const rule = { limit: 2, windowMs: 60_000 };
        const t = 1_800_000_000_000;
        expect(await store.hitRateLimit('10.0.0.1', t, rule)).toBe(0);
        expect(await store.hitRateLimit('10.0.0.1', t + 10_000, rule)).toBe(0);
        expect(await store.hitRateLimit('10.0.0.1', t + 20_000, rule)).toBe(40);
        expect(await store.hitRateLimit('10.0.0.2', t + 20_000, rule)).toBe(0);
        expect(await store.hitRateLimit('10.0.0.1', t + 59_500, rule)).toBe(1);
        // The first hit leaves the window at t + 60 s; the refused ones never entered it.
        expect(await store.hitRateLimit('10.0.0.1', t + 60_000, rule)).toBe(0);
        expect(await store.hitRateLimit('10.0.0.1', t + 60_001, rule)).toBe(10);
        expect(await store.hitRateLimit('10.0.0.3', t, { limit: 0, windowMs: 60_000 })).toBe(0);
      }),
    );

    it(
      'counts several hits at once, all or none, and says when that many fit',
      withStore(async ({ store }) => {
        const rule = { limit: 5, windowMs: 60_000 };
        const t = 1_800_000_000_000;
        expect(await store.hitRateLimit('block', t, rule, 3)).toBe(0);
        expect(await store.hitRateLimit('block', t + 10_000, rule, 1)).toBe(0);
        // 4 counted: 3 more do not fit until two of them leave (the three of t, at t + 60 s).
        expect(await store.hitRateLimit('block', t + 20_000, rule, 3)).toBe(40);
        expect(await store.hitRateLimit('block', t + 20_000, rule, 1)).toBe(0);
        expect(await store.hitRateLimit('block', t + 20_000, rule, 1)).toBe(40);
        expect(await store.hitRateLimit('block', t + 60_000, rule, 3)).toBe(0);
      }),
    );

    it(
      'answers a probe while open',
      withStore(async ({ store }) => {
        expect(typeof (await store.probe())).toBe('boolean');
      }),
    );

    it(
      'keeps a deleted session deleted across a reopen',
      withStore(async (h) => {
        const gone = sessionRecord();
        const kept = sessionRecord();
        await h.store.putSession(gone);
        await h.store.putSession(kept);
        await h.store.addMessage(gone.id, newMessage());
        await h.store.deleteSession(gone.id);
        const store = await h.reopen();
        expect(await store.getSession(gone.id)).toBeUndefined();
        expect(await store.listMessages(gone.id)).toEqual([]);
        expect((await store.listSessions()).map((x) => x.id)).toEqual([kept.id]);
      }),
    );

    it(
      'versions a listing: a new version at each message stored or deleted, the same while nothing changes',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        const other = sessionRecord();
        await store.putSession(s);
        await store.putSession(other);
        expect(await store.inboxVersion('nope')).toBeUndefined();
        const seen = [await store.inboxVersion(s.id)];
        expect(typeof seen[0]).toBe('string');
        const step = async (what: string, change: () => Promise<unknown>) => {
          await change();
          const v = await store.inboxVersion(s.id);
          expect(seen, `${what}: a version never seen before`).not.toContain(v);
          seen.push(v);
        };
        await step('add', () => store.addMessage(s.id, newMessage()));
        await step('deliver', () => store.deliver([s.id, other.id], newMessage(), 10));
        await step('another add', () => store.addMessage(s.id, newMessage()));
        const ids = (await store.listMessages(s.id)).map((m) => m.id);
        await step('delete of the newest', () => store.deleteMessage(s.id, ids[2]!));
        await step('delete of the oldest', () => store.deleteMessage(s.id, ids[0]!));
        await step('add after deletes', () => store.addMessage(s.id, newMessage()));
        // Reads, a full inbox refused, a delete of nothing, another session's mail: no change.
        const now = seen.at(-1);
        await store.listMessages(s.id);
        await store.getMessage(s.id, ids[1]!);
        await store.countMessages(s.id);
        expect((await store.deliver([s.id], newMessage(), 1)).full).toEqual([s.id]);
        expect(await store.deleteMessage(s.id, ids[0]!)).toBe(false);
        await store.addMessage(other.id, newMessage());
        expect(await store.inboxVersion(s.id)).toBe(now);
        expect(await store.inboxVersion(s.id)).toBe(now);
      }),
    );

    it(
      'reads the session of an address with its message count',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        expect(await store.recipientInbox('nobody@tempmail.test')).toBeUndefined();
        expect(await store.recipientInbox(s.addressKey)).toEqual({ session: s, messages: 0 });
        const { id } = await store.addMessage(s.id, newMessage());
        await store.deliver([s.id], newMessage(), 10);
        await store.deleteMessage(s.id, id);
        expect(await store.recipientInbox(s.addressKey)).toEqual({ session: s, messages: 1 });
      }),
    );

    it(
      'reads a session and its inbox version together by token hash',
      withStore(async ({ store }) => {
        const s = sessionRecord();
        await store.putSession(s);
        expect(await store.inboxByTokenHash('no such hash')).toBeUndefined();
        const before = await store.inboxByTokenHash(s.tokenHash);
        expect(before).toEqual({ session: s, version: await store.inboxVersion(s.id) });
        await store.addMessage(s.id, newMessage());
        const after = await store.inboxByTokenHash(s.tokenHash);
        expect(after).toEqual({ session: s, version: await store.inboxVersion(s.id) });
        expect(after!.version).not.toBe(before!.version);
        await store.deleteSession(s.id);
        expect(await store.inboxByTokenHash(s.tokenHash)).toBeUndefined();
      }),
    );

    it(
      'gives one version only to one listing, across a reopen too',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        const listings = new Map<string, string>();
        const record = async () => {
          const v = (await h.store.inboxVersion(s.id))!;
          const listing = JSON.stringify((await h.store.listMessages(s.id)).map((m) => m.id));
          expect(listings.get(v) ?? listing, `version ${v}`).toBe(listing);
          listings.set(v, listing);
        };
        await record();
        await h.store.addMessage(s.id, newMessage());
        const two = (await h.store.addMessage(s.id, newMessage())).id;
        await record();
        await h.reopen();
        await record();
        await h.store.deleteMessage(s.id, two);
        await record();
        await h.reopen();
        await record();
        const three = (await h.store.addMessage(s.id, newMessage())).id;
        await record();
        await h.store.deleteMessage(s.id, three);
        await record();
        await h.reopen();
        await record();
        expect(new Set(listings.values()).size).toBeGreaterThanOrEqual(3);
      }),
    );

    it(
      'keeps fetch cursors per account and folder, replaced on save, across a reopen',
      withStore(async (h) => {
        expect(await h.store.getFetchCursor('keeper@ext.test', 'INBOX')).toBeUndefined();
        await h.store.putFetchCursor('keeper@ext.test', 'INBOX', { uidValidity: 1_700_000_000, lastUid: 7 });
        await h.store.putFetchCursor('keeper@ext.test', '[Gmail]/Spam', {
          uidValidity: 2 ** 32 - 1,
          lastUid: 2 ** 32 - 2,
        });
        await h.store.putFetchCursor('keeper@ext.test', 'Renumbered', {
          uidValidity: 8,
          lastUid: 3,
          renumberedAt: 1_800_000_000_123,
        });
        await h.store.putFetchCursor('other@ext.test', 'INBOX', { uidValidity: 5, lastUid: 1 });
        await h.store.putFetchCursor('keeper@ext.test', 'INBOX', { uidValidity: 1_700_000_000, lastUid: 9 });
        for (const n of [10, 11, 12])
          await h.store.putFetchCursor('other@ext.test', 'INBOX', { uidValidity: 5, lastUid: n });
        const reopened = await h.reopen();
        expect(await reopened.getFetchCursor('keeper@ext.test', 'INBOX')).toEqual({
          uidValidity: 1_700_000_000,
          lastUid: 9,
        });
        expect(await reopened.getFetchCursor('keeper@ext.test', '[Gmail]/Spam')).toEqual({
          uidValidity: 2 ** 32 - 1,
          lastUid: 2 ** 32 - 2,
        });
        expect(await reopened.getFetchCursor('other@ext.test', 'INBOX')).toEqual({ uidValidity: 5, lastUid: 12 });
        expect(await reopened.getFetchCursor('keeper@ext.test', 'Junk')).toBeUndefined();
        expect(await reopened.getFetchCursor('keeper@ext.test', 'Renumbered')).toEqual({
          uidValidity: 8,
          lastUid: 3,
          renumberedAt: 1_800_000_000_123,
        });
        // Saved again without it (the lifetime after the renumbering is over): gone.
        await reopened.putFetchCursor('keeper@ext.test', 'Renumbered', { uidValidity: 8, lastUid: 4 });
        expect(await reopened.getFetchCursor('keeper@ext.test', 'Renumbered')).toEqual({ uidValidity: 8, lastUid: 4 });
        const got = (await reopened.getFetchCursor('keeper@ext.test', 'INBOX'))!;
        got.lastUid = 0;
        expect((await reopened.getFetchCursor('keeper@ext.test', 'INBOX'))!.lastUid).toBe(9);
      }),
    );

    it(
      'keeps the last fetch status of each account across a reopen',
      withStore(async (h) => {
        expect(await h.store.getFetchStatus('keeper@ext.test')).toBeUndefined();
        await h.store.putFetchStatus('keeper@ext.test', {
          active: false,
          reason: 'login refused by imap.ext.test:993 \u001b[31m',
          at: 1_800_000_000_123,
        });
        await h.store.putFetchStatus('other@ext.test', { active: true, reason: '', at: 1 });
        await h.store.putFetchStatus('other@ext.test', { active: false, reason: 'connection refused', at: 2 });
        const reopened = await h.reopen();
        expect(await reopened.getFetchStatus('keeper@ext.test')).toEqual({
          active: false,
          reason: 'login refused by imap.ext.test:993 \u001b[31m',
          at: 1_800_000_000_123,
        });
        expect(await reopened.getFetchStatus('other@ext.test')).toEqual({
          active: false,
          reason: 'connection refused',
          at: 2,
        });
      }),
    );

    it(
      'hands out one fetch claim per account until it is released; closing loses it',
      withStore(async (h) => {
        const claim = await h.store.claimFetch('keeper@ext.test');
        expect(claim).toBeDefined();
        expect(await h.store.claimFetch('keeper@ext.test')).toBeUndefined();
        const other = await h.store.claimFetch('other@ext.test');
        expect(other).toBeDefined();
        await claim!.release();
        await claim!.release();
        const again = await h.store.claimFetch('keeper@ext.test');
        expect(again).toBeDefined();
        let lost = false;
        void again!.lost.then(() => (lost = true));
        const reopened = await h.reopen();
        await again!.lost;
        expect(lost).toBe(true);
        await other!.lost;
        expect(await reopened.claimFetch('keeper@ext.test')).toBeDefined();
      }),
    );

    if (options.shared)
      describe('shared by two services at once', () => {
        const withTwin = (fn: (a: Store, b: Store) => Promise<void>) =>
          withStore(async (h) => {
            if (!h.twin) throw new Error('this harness has no twin');
            await fn(h.store, await h.twin());
          });

        it(
          'sees sessions and messages written by the other, and their deletes',
          withTwin(async (a, b) => {
            const s = sessionRecord();
            expect(await a.insertSession(s, 0)).toBe('created');
            expect(await b.getSessionByTokenHash(s.tokenHash)).toEqual(s);
            const id = (await b.deliver([s.id], newMessage(), 10)).stored.get(s.id)!.id;
            expect((await a.listMessages(s.id)).map((m) => m.id)).toEqual([id]);
            expect(await a.deleteMessage(s.id, id)).toBe(true);
            expect(await b.getMessage(s.id, id)).toBeUndefined();
            expect(await b.deleteSession(s.id)).toBe(true);
            expect(await a.getSession(s.id)).toBeUndefined();
          }),
        );

        it(
          "sees the other's changes in the inbox version at once (a cached listing is never stale)",
          withTwin(async (a, b) => {
            const s = sessionRecord();
            await a.putSession(s);
            const v0 = await a.inboxVersion(s.id);
            expect(await b.inboxVersion(s.id)).toBe(v0);
            const { id } = (await b.deliver([s.id], newMessage(), 10)).stored.get(s.id)!;
            const v1 = await a.inboxVersion(s.id);
            expect(v1).not.toBe(v0);
            expect(await b.inboxVersion(s.id)).toBe(v1);
            await b.addMessage(s.id, newMessage());
            const v2 = await a.inboxVersion(s.id);
            expect([v0, v1]).not.toContain(v2);
            expect(await a.deleteMessage(s.id, id)).toBe(true);
            const v3 = await b.inboxVersion(s.id);
            expect([v0, v1, v2]).not.toContain(v3);
            expect(await a.inboxVersion(s.id)).toBe(v3);
          }),
        );

        it(
          'keeps the inbox limit, one address per live session and the create rate across both',
          withTwin(async (a, b) => {
            const s = sessionRecord();
            await a.putSession(s);
            const results = await Promise.all(
              Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).deliver([s.id], newMessage(), 3)),
            );
            expect(results.filter((r) => r.stored.size === 1)).toHaveLength(3);
            expect(await b.countMessages(s.id)).toBe(3);
            const ids = (await a.listMessages(s.id)).map((m) => m.id);
            const stored = results.flatMap((r) => [...r.stored.values()].map((m) => m.id));
            expect(ids).toEqual(stored.sort((x, y) => x - y));
            expect(new Set(ids).size).toBe(3);
            const rivals = Array.from({ length: 6 }, () => sessionRecord({ addressKey: 'shared@tempmail.test' }));
            const outcomes = await Promise.all(rivals.map((r, i) => (i % 2 ? a : b).insertSession(r, 0)));
            expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
            const rule = { limit: 3, windowMs: 60_000 };
            const waits = await Promise.all(
              Array.from({ length: 5 }, (_, i) => (i % 2 ? a : b).hitRateLimit('192.0.2.9', 1000, rule)),
            );
            expect(waits.filter((w) => w === 0)).toHaveLength(3);
          }),
        );

        it(
          'gives a fetch claim to one of them; the other wins it once it is released or its holder closes',
          withTwin(async (a, b) => {
            const claims = await Promise.all([a, b, a, b].map((s) => s.claimFetch('keeper@ext.test')));
            expect(claims.filter((c) => c !== undefined)).toHaveLength(1);
            const holder = claims.findIndex((c) => c !== undefined) % 2 === 0 ? a : b;
            const rival = holder === a ? b : a;
            await claims.find((c) => c !== undefined)!.release();
            const next = await rival.claimFetch('keeper@ext.test');
            expect(next).toBeDefined();
            expect(await holder.claimFetch('keeper@ext.test')).toBeUndefined();
            await rival.close();
            await next!.lost;
            expect(await holder.claimFetch('keeper@ext.test')).toBeDefined();
            await holder.putFetchCursor('keeper@ext.test', 'INBOX', { uidValidity: 3, lastUid: 4 });
          }),
        );

        it(
          'shows each the fetch cursors and statuses the other saved',
          withTwin(async (a, b) => {
            await a.putFetchCursor('keeper@ext.test', 'INBOX', { uidValidity: 3, lastUid: 4 });
            await a.putFetchStatus('keeper@ext.test', { active: false, reason: 'why', at: 5 });
            expect(await b.getFetchCursor('keeper@ext.test', 'INBOX')).toEqual({ uidValidity: 3, lastUid: 4 });
            expect(await b.getFetchStatus('keeper@ext.test')).toEqual({ active: false, reason: 'why', at: 5 });
          }),
        );
      });
  });
}
