/**
 * mail.tm's new-mail push (Mercure server-sent events) against the fake's hub over real HTTP: an event
 * for each delivery, a refused token renewed and the stream opened again, and a hub that fails or
 * closes its streams reported as down and tried again with a backoff, never thrown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { MailWatch, PushState } from '../../../src/client/client-types';
import { createMailtmProvider } from '../../../src/client/mailtm/mailtm-provider';
import { waitFor } from '../../harness/wait';
import { FLOOD_BYTES, startMailtmFake, type MailtmFake, type MailtmFakeOptions } from '../../providers/mailtm-fake';

let fake: MailtmFake | undefined;
let watch: MailWatch | undefined;
afterEach(async () => {
  watch?.stop();
  watch = undefined;
  await fake?.close();
  fake = undefined;
});

async function watching(options: MailtmFakeOptions = {}) {
  fake = await startMailtmFake(options);
  const mt = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 });
  const session = await mt.createSession();
  const states: PushState[] = [];
  let mail = 0;
  watch = mt.watchMail!(session, { onMail: () => (mail += 1), onState: (s) => states.push(s) });
  return { fake, mt, session, states, mail: () => mail };
}

describe('mail.tm new-mail push', () => {
  it('says live once the hub answers, and calls onMail for each delivery', async () => {
    const w = await watching();
    await waitFor(() => w.states.includes('live') && w.fake.subscribers(w.session.accountId!) === 1, {
      message: 'the stream to open',
    });
    expect(w.states[0]).toBe('connecting');
    w.fake.deliver(w.session.email, { subject: 'pushed', text: 'x' });
    await waitFor(() => w.mail() >= 1, { message: 'the pushed event' });
    // The hub asked with the account's topic and its token (a bearer), nothing in the query but the topic.
    expect(w.fake.log.filter((l) => l.path === '/.well-known/mercure')).toEqual([
      { method: 'GET', path: '/.well-known/mercure', status: 200, bearer: true, at: expect.any(Number) },
    ]);
    watch!.stop();
    await waitFor(() => w.fake.subscribers(w.session.accountId!) === 0, { message: 'the stream to close' });
  });

  it('a refused token: a new one from the password, and the stream again', async () => {
    fake = await startMailtmFake();
    const mt = createMailtmProvider({ baseUrl: fake.baseUrl, retries: 0, requestsPerSecond: 0 });
    const session = await mt.createSession();
    fake.expireTokens();
    const states: PushState[] = [];
    let mail = 0;
    watch = mt.watchMail!(session, { onMail: () => (mail += 1), onState: (s) => states.push(s) });
    await waitFor(() => states.includes('live'), { message: 'the stream to open with a new token' });
    expect(fake.log.filter((l) => l.path === '/token').length).toBe(2); // at creation, and the renewal
    fake.deliver(session.email, { subject: 'after renewal', text: 'x' });
    await waitFor(() => mail >= 1, { message: 'the pushed event' });
  });

  it('a hub that fails is down, and asked again later; nothing is thrown', async () => {
    const w = await watching({ mercure: 'fail' });
    await waitFor(() => w.states.includes('down'), { message: 'down' });
    expect(w.states).not.toContain('live');
    await waitFor(() => w.fake.log.filter((l) => l.path === '/.well-known/mercure').length >= 2, {
      timeoutMs: 8000,
      message: 'a second try after the backoff',
    });
    expect(w.mail()).toBe(0);
  });

  it('a stream the hub closes is down, then opened again', async () => {
    const w = await watching({ mercure: 'close' });
    await waitFor(() => w.states.filter((s) => s === 'live').length >= 1 && w.states.includes('down'), {
      message: 'live then down',
    });
    await waitFor(() => w.states.filter((s) => s === 'live').length >= 2, { timeoutMs: 8000, message: 'opened again' });
  });

  it('a hub that streams data lines and never ends an event: closed at the 1 MiB bound, down, opened again', async () => {
    const w = await watching({ mercure: 'flood' });
    await waitFor(() => w.fake.floods.length >= 2, {
      timeoutMs: 20_000,
      message: 'the flooded stream closed and opened again',
    });
    expect(w.states.slice(0, 3)).toEqual(['connecting', 'live', 'down']);
    // The client closed it once the event passed 1 MiB: the hub got a little more into the sockets'
    // buffers, nowhere near the 64 MiB it would send (before, all of it was read and kept).
    expect(w.fake.floods[0]).toBeGreaterThan(1024 * 1024);
    expect(w.fake.floods[0]).toBeLessThan(FLOOD_BYTES / 4);
    expect(w.mail()).toBe(0);
  });
});
