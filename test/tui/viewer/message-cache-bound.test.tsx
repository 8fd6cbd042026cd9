/**
 * The session's cache of fetched messages is bounded, read over real HTTP from the mail.tm conformance
 * fake: past its limits (messages, body characters) the longest-kept bodies go, never the one opened
 * last; a message whose body went is fetched again when opened. Before, every body fetched in a session
 * stayed (a provider with new mail at every check, each prefetched, grew it without end). And it is pruned
 * to a listing (issue 38): the bodies of messages no longer listed go, but the one opened last and one on
 * its way.
 */
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { MailProvider } from '../../../src/client/client-types';
import { createMailtmProvider } from '../../../src/client/mailtm/mailtm-provider';
import type { Message, Session } from '../../../src/model/mail-types';
import {
  pruneEntries,
  useMessageCache,
  type BodyEntry,
  type CacheLimits,
  type MessageCache,
} from '../../../src/tui/viewer/use-message-cache';
import { waitFor } from '../../harness/wait';
import { startMailtmFake, type MailtmFake } from '../../providers/mailtm-fake';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

function Probe(props: {
  api: MailProvider;
  session: Session;
  limits: CacheLimits;
  onCache: (cache: MessageCache) => void;
}) {
  props.onCache(useMessageCache(props.api, props.session, props.limits));
  return <Text>cache</Text>;
}

async function world(limits: CacheLimits) {
  const fake: MailtmFake = await startMailtmFake();
  cleanup.after(() => fake.close());
  const api = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 });
  const session = await api.createSession();
  let cache: MessageCache | undefined;
  const screen = render(<Probe api={api} session={session} limits={limits} onCache={(c) => (cache = c)} />);
  cleanup.after(() => screen.unmount());
  const open = async (id: string) => {
    cache!.load(id);
    await waitFor(() => (cache!.get(id)?.status === 'ready' ? true : null), { message: `message ${id} fetched` });
  };
  const fetches = (id: string) => fake.log.filter((l) => l.method === 'GET' && l.path === `/messages/${id}`).length;
  return { fake, session, cache: () => cache!, open, fetches };
}

// The ids whose bodies are kept, in the order of `ids`.
const kept = (cache: MessageCache, ids: string[]) => ids.filter((id) => cache.get(id)?.status === 'ready');

describe('the message cache is bounded', () => {
  it('keeps at most maxKept bodies: the longest-kept go first; one opened again is fetched again', async () => {
    const w = await world({ maxKept: 3, maxChars: 1_000_000 });
    const ids = Array.from({ length: 8 }, (_, i) =>
      w.fake.deliver(w.session.email, { subject: `m${i}`, text: `body ${i}` }),
    );
    for (const id of ids) await w.open(id);
    expect(kept(w.cache(), ids)).toEqual(ids.slice(5));
    await w.open(ids[0]!);
    expect(w.fetches(ids[0]!)).toBe(2);
    expect(kept(w.cache(), ids)).toEqual([ids[0]!, ids[6]!, ids[7]!]);
    // Opened again while kept: no request, and it becomes the last to go.
    await w.open(ids[6]!);
    expect(w.fetches(ids[6]!)).toBe(1);
    await w.open(ids[1]!);
    expect(kept(w.cache(), ids)).toEqual([ids[0]!, ids[1]!, ids[6]!]);
  });

  it('keeps at most maxChars of bodies, but always the message opened last, however big', async () => {
    const w = await world({ maxKept: 100, maxChars: 50_000 });
    const small = Array.from({ length: 4 }, (_, i) =>
      w.fake.deliver(w.session.email, { subject: `s${i}`, text: 'x'.repeat(20_000) }),
    );
    for (const id of small) await w.open(id);
    expect(kept(w.cache(), small)).toEqual(small.slice(2));
    const big = w.fake.deliver(w.session.email, { subject: 'big', text: 'y'.repeat(200_000) });
    await w.open(big);
    expect(kept(w.cache(), [...small, big])).toEqual([big]);
  });
});

describe('the message cache is pruned to the listing', () => {
  it('drops the bodies of messages no longer listed, never the one opened last nor one on its way', async () => {
    const w = await world({ maxKept: 100, maxChars: 1_000_000 });
    const ids = Array.from({ length: 5 }, (_, i) =>
      w.fake.deliver(w.session.email, { subject: `m${i}`, text: `body ${i}` }),
    );
    const [gone1, gone2, listed, open, onItsWay] = ids as [string, string, string, string, string];
    for (const id of [gone1, gone2, listed, open]) await w.open(id);
    // Background fetch of a message that is then deleted: on its way when the listing comes.
    w.cache().prefetch([onItsWay]);
    expect(w.cache().get(onItsWay)?.status).toBe('loading');
    // The listing has only `listed`: `open` was deleted while the viewer shows it.
    w.cache().prune(new Set([listed]));
    expect(ids.map((id) => w.cache().get(id)?.status ?? null)).toEqual([null, null, 'ready', 'ready', 'loading']);
    await waitFor(() => (w.cache().get(onItsWay)?.status === 'ready' ? true : null), { message: 'landed' });
    // The next listing's pruning takes what landed meanwhile.
    w.cache().prune(new Set([listed]));
    expect(ids.map((id) => w.cache().get(id)?.status ?? null)).toEqual([null, null, 'ready', 'ready', null]);
  });
});

describe('pruneEntries', () => {
  const message = (id: string) => ({ id }) as unknown as Message;
  it('deletes the settled entries not listed, keeps the listed, the loading and `keep`', () => {
    const map = new Map<string, BodyEntry>([
      ['1', { status: 'ready', message: message('1') }],
      ['2', { status: 'error', error: 'no' }],
      ['3', { status: 'loading' }],
      ['4', { status: 'ready', message: message('4') }],
      ['5', { status: 'ready', message: message('5') }],
      ['6', { status: 'error', error: 'no' }],
    ]);
    pruneEntries(map, new Set(['4', '6', '7']), '5');
    expect([...map.keys()]).toEqual(['3', '4', '5', '6']);
  });
});
