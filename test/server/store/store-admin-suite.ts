/**
 * The part of the store suite about the admin API (memory, file and Postgres pass it too): where each
 * message came from, finding messages by sender and client address, and the blocks.
 */
import { describe, expect, it } from 'vitest';
import { newMessage, sessionRecord, storeTest, type StoreHarness } from './store-suite';

/** `shared`: the store can be open in two services at once (its harness has twin()), as in runStoreSuite. */
export function runStoreAdminSuite(
  name: string,
  make: () => Promise<StoreHarness>,
  options: { shared?: boolean } = {},
): void {
  describe(`Store admin suite: ${name}`, () => {
    const withStore = storeTest(make);

    it(
      'keeps the client address and envelope sender of each message, across a reopen; mail without them has neither',
      withStore(async (h) => {
        const s = sessionRecord();
        await h.store.putSession(s);
        await h.store.addMessage(
          s.id,
          newMessage({ clientIp: '203.0.113.9', envelopeFrom: 'Bounce+X@Lists.Example.org' }),
        );
        await h.store.addMessage(s.id, newMessage({ clientIp: '2001:db8::7', envelopeFrom: '' }));
        await h.store.addMessage(s.id, newMessage());
        for (const reopen of [false, true]) {
          const store = reopen ? await h.reopen() : h.store;
          const list = await store.listMessages(s.id);
          expect(list.map((m) => [m.clientIp, m.envelopeFrom])).toEqual([
            ['203.0.113.9', 'Bounce+X@Lists.Example.org'],
            ['2001:db8::7', ''],
            [undefined, undefined],
          ]);
          expect(list[2]).not.toHaveProperty('clientIp');
          expect(list[2]).not.toHaveProperty('envelopeFrom');
        }
      }),
    );

    it(
      'finds messages by sender address or domain (From or envelope), by client address or range, newest first',
      withStore(async ({ store }) => {
        const [a, b] = [sessionRecord(), sessionRecord()];
        await store.putSession(a);
        await store.putSession(b);
        const add = (id: string, subject: string, at: number, fields: Parameters<typeof newMessage>[0]) =>
          store.addMessage(id, newMessage({ subject, receivedAt: 1_800_000_000_000 + at, ...fields }));
        await add(a.id, 'one', 1, {
          senderEmail: 'Spam@Bad.example',
          envelopeFrom: 'bounce@relay.example',
          clientIp: '203.0.113.9',
        });
        await add(b.id, 'two', 2, {
          senderEmail: 'news@mail.bad.example',
          envelopeFrom: 'news@mail.bad.example',
          clientIp: '203.0.113.77',
        });
        await add(a.id, 'three', 3, {
          senderEmail: 'friend@notbad.example',
          envelopeFrom: 'spam@bad.example',
          clientIp: '2001:db8::5',
        });
        const four = await add(b.id, 'four', 4, {
          senderEmail: 'ok@good.example',
          envelopeFrom: 'ok@good.example',
          clientIp: '198.51.100.1',
        });
        await add(b.id, 'fetched', 5, { senderEmail: 'spam@bad.example' });
        const subjects = async (filter: Parameters<typeof store.findMessages>[0], limit = 100) =>
          (await store.findMessages(filter, limit)).map((f) => f.message.subject);

        expect(await subjects({ sender: 'spam@bad.example' })).toEqual(['fetched', 'three', 'one']);
        expect(await subjects({ sender: 'SPAM@BAD.EXAMPLE' })).toEqual(['fetched', 'three', 'one']);
        // A domain covers its subdomains, not a name that merely ends the same way.
        expect(await subjects({ sender: 'bad.example' })).toEqual(['fetched', 'three', 'two', 'one']);
        expect(await subjects({ sender: 'relay.example' })).toEqual(['one']);
        expect(await subjects({ clientIp: '203.0.113.9' })).toEqual(['one']);
        expect(await subjects({ clientIp: '203.0.113.0/24' })).toEqual(['two', 'one']);
        expect(await subjects({ clientIp: '2001:db8::/32' })).toEqual(['three']);
        expect(await subjects({ sender: 'bad.example', clientIp: '203.0.113.0/24' })).toEqual(['two', 'one']);
        expect(await subjects({ sender: 'bad.example' }, 2)).toEqual(['fetched', 'three']);
        expect(await subjects({ sender: 'nobody@nowhere.example' })).toEqual([]);
        const [hit] = await store.findMessages({ clientIp: '198.51.100.1' }, 10);
        expect(hit!.session).toEqual(b);
        expect(hit!.message).toMatchObject({ id: four.id, senderEmail: 'ok@good.example', clientIp: '198.51.100.1' });
      }),
    );

    it(
      'keeps blocks: added once, listed oldest first, removed, across a reopen',
      withStore(async (h) => {
        expect(await h.store.listBlocks()).toEqual([]);
        expect(await h.store.putBlock({ kind: 'ip', value: '203.0.113.0/24', createdAt: 2 })).toBe(true);
        expect(await h.store.putBlock({ kind: 'sender', value: 'spam@bad.example', createdAt: 1 })).toBe(true);
        expect(await h.store.putBlock({ kind: 'domain', value: 'bad.example', createdAt: 3 })).toBe(true);
        expect(await h.store.putBlock({ kind: 'ip', value: '203.0.113.0/24', createdAt: 9 })).toBe(false);
        const all = [
          { kind: 'sender', value: 'spam@bad.example', createdAt: 1 },
          { kind: 'ip', value: '203.0.113.0/24', createdAt: 2 },
          { kind: 'domain', value: 'bad.example', createdAt: 3 },
        ];
        expect(await h.store.listBlocks()).toEqual(all);
        const store = await h.reopen();
        expect(await store.listBlocks()).toEqual(all);
        expect(await store.deleteBlock('sender', 'spam@bad.example')).toBe(true);
        expect(await store.deleteBlock('sender', 'spam@bad.example')).toBe(false);
        expect(await store.deleteBlock('domain', 'other.example')).toBe(false);
        expect((await (await h.reopen()).listBlocks()).map((b) => b.value)).toEqual(['203.0.113.0/24', 'bad.example']);
      }),
    );

    if (options.shared)
      it(
        'shares blocks with a second service on the same data',
        withStore(async (h) => {
          const twin = await h.twin!();
          await h.store.putBlock({ kind: 'ip', value: '192.0.2.1', createdAt: 1 });
          expect(await twin.listBlocks()).toEqual([{ kind: 'ip', value: '192.0.2.1', createdAt: 1 }]);
          expect(await twin.putBlock({ kind: 'ip', value: '192.0.2.1', createdAt: 5 })).toBe(false);
          expect(await twin.deleteBlock('ip', '192.0.2.1')).toBe(true);
          expect(await h.store.listBlocks()).toEqual([]);
        }),
      );
  });
}
