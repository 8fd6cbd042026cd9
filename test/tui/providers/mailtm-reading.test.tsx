/**
 * Reading on mail.tm (its conformance fake over loopback): the list marks what mail.tm says was seen as
 * read and what carries attachments with @; opening a message marks it seen at mail.tm too; R shows the
 * message as mail.tm received it, and S saves those bytes as .eml.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProvider, createProviderSet, type ProviderRef } from '../../../src/client/providers';
import { App } from '../../../src/tui/app';
import { waitFor } from '../../harness/wait';
import { startMailtmFake } from '../../providers/mailtm-fake';
import { KEY, renderAt } from '../ui';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

describe('reading on mail.tm', () => {
  it('seen and attachments in the list, opening marks it seen there, R and S use its raw message', async () => {
    const mailtm = await startMailtmFake();
    cleanup.after(() => mailtm.close());
    const downloads = mkdtempSync(join(tmpdir(), 'tui-mailtm-eml-'));
    cleanup.after(() => rmSync(downloads, { recursive: true, force: true }));
    const ref: ProviderRef = { provider: 'mailtm', baseUrl: mailtm.baseUrl };
    const providers = createProviderSet({
      choices: [ref],
      make: (r) => createProvider(r.provider, { baseUrl: r.baseUrl, retries: 0, timeoutMs: 3000 }),
    });
    const screen = renderAt(
      <App
        providers={providers}
        settings={{ pollIntervalMs: 60_000, bell: false, downloadDir: downloads }}
        noColor
        onQuit={() => undefined}
      />,
      100,
      30,
    );
    cleanup.after(() => screen.unmount());
    await screen.waitFor('Random address on mailtm.test');
    await screen.press(KEY.ENTER);
    const frame = await screen.waitFor((f) => /^\S+@mailtm\.test +no expiry/.test(f));
    const address = /^(\S+@mailtm\.test)/.exec(frame)![1]!;

    // Opened elsewhere (mail.tm's own web client): mail.tm lists it as seen.
    mailtm.deliver(address, {
      subject: 'Read on the web',
      text: 'Already seen there.',
      seen: true,
      at: new Date(Date.now() - 60_000),
    });
    const file = mailtm.deliver(address, {
      subject: 'Statement',
      text: 'See the file.',
      attachments: [{ filename: 's.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF') }],
    });
    await screen.press('r');
    let list = await screen.waitFor('2 messages · 1 unread');
    expect(list).toMatch(/^ {3}\S.* +Read on the web/m);
    expect(list).toMatch(/^N@ \S.* +Statement/m);

    await screen.press('g', KEY.ENTER);
    await screen.waitFor('See the file.');
    // Told to mail.tm in the background (a courtesy: the list's own marks do not wait for it).
    await waitFor(() => (mailtm.seen(file) === true ? true : null), { message: 'seen at mail.tm' });
    await screen.press('R');
    await screen.waitFor(`Message-ID: <${file}@fake.mail.tm>`);
    await screen.press('S');
    await screen.waitFor(/Saved to .*Statement\.eml/);
    expect(readFileSync(join(downloads, 'Statement.eml'), 'utf8')).toContain(`Message-ID: <${file}@fake.mail.tm>`);
    await screen.press('q');
    list = await screen.waitFor('2 messages · 0 unread');
  });
});
