/**
 * The app says what a listing left out, against the mail.tm conformance fake over loopback: a message
 * listed under an id that could change a URL costs only itself (the rest of the inbox shows), and the
 * status line says it whole while the list's summary line keeps it in a few words; an inbox of nothing
 * but such entries says so instead of "No mail yet".
 */
import { describe, expect, it } from 'vitest';
import { createProvider, createProviderSet, type ProviderRef } from '../../../src/client/providers';
import { App } from '../../../src/tui/app';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { KEY, renderAt } from '../ui';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

describe('what a listing left out', () => {
  it('unreadable entries are left out and said; the rest of the inbox shows', async () => {
    const mailtm = await startMailtmFake();
    cleanup.after(() => mailtm.close());
    const ref: ProviderRef = { provider: 'mailtm', baseUrl: mailtm.baseUrl };
    const providers = createProviderSet({
      choices: [ref],
      make: (r) => createProvider(r.provider, { baseUrl: r.baseUrl, retries: 0, timeoutMs: 3000 }),
    });
    const screen = renderAt(
      <App providers={providers} settings={{ pollIntervalMs: 60_000, bell: false }} noColor onQuit={() => undefined} />,
      100,
      30,
    );
    cleanup.after(() => screen.unmount());
    await screen.waitFor('Random address on mailtm.test');
    await screen.press(KEY.ENTER);
    const frame = await screen.waitFor((f) => /^\S+@mailtm\.test +no expiry/.test(f));
    const address = /^(\S+@mailtm\.test)/.exec(frame)![1]!;

    mailtm.deliver(address, { subject: 'Dot dot', id: '../x' });
    await screen.press('r');
    await screen.waitFor(
      `No mail to show for ${address}:\n1 listed message left out (no usable id in the service's answer).`,
    );

    mailtm.deliver(address, { subject: 'Your code', text: 'It is 482913.' });
    mailtm.deliver(address, { subject: 'Query', id: 'a?b=c' });
    await screen.press('r');
    const shown = await screen.waitFor('1 message · 1 unread · 1 new · 2 unreadable left out');
    expect(shown).toMatch(/Your code/);
    expect(shown).not.toMatch(/Dot dot|Query/);
    await screen.waitFor("2 listed messages left out (no usable id in the service's answer).");
  });
});
