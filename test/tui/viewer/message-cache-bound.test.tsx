/**
 * The session's cache of fetched messages is bounded, read over real HTTP from the mail.tm conformance
 * fake: past its limits (messages, body characters) the longest-kept bodies go, never the one opened
 * last; a message whose body went is fetched again when opened. Before, every body fetched in a session
 * stayed (a provider with new mail at every check, each prefetched, grew it without end).
 */
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { MailProvider } from '../../../src/client/client-types';
import { createMailtmProvider } from '../../../src/client/mailtm/mailtm-provider';
import type { Session } from '../../../src/model/mail-types';
import { useMessageCache, type CacheLimits, type MessageCache } from '../../../src/tui/viewer/use-message-cache';
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
