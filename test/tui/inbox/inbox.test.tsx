import { describe, expect, it } from 'vitest';
import { textWidth } from '../../../src/text/text-width';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { sendMail, startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { startApp, pickFirstDomain, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const mail = (h: AppHarness, to: string, subject: string, from = 'Alice Example <alice@example.org>') =>
  sendMail(h.svc, { from, to, subject, text: `Body of ${subject}` });

describe('inbox', () => {
  it('empty state in local mode gives the exact SMTP target', async () => {
    // Wide enough for the banner's whole sentence whatever the random address (at 80 columns a long one
    // takes a shorter wording: session-header.test.tsx).
    h = await startApp({ local: true, columns: 120 });
    const address = await pickFirstDomain(h);
    const frame = await h.screen.waitFor('No mail yet');
    expect(frame).toContain(`No mail yet for ${address}.`);
    // T sends a sample there (test/tui/sample/sample.test.tsx); no tool to install is named.
    expect(frame).toContain(`Press T to send it a sample message via SMTP 127.0.0.1:${h.svc.smtpPort}`);
    expect(frame).not.toContain('swaks');
    expect(frame).toContain(`Local service: send mail to ${address} via SMTP 127.0.0.1:${h.svc.smtpPort}`);
    expect(frame).toMatch(/last checked \d\d:\d\d:\d\d/);
  });

  it('new mail shows up by itself (polling), newest first, marked new, with the bell rung once per arrival', async () => {
    h = await startApp({ pollIntervalMs: 1000 });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    await mail(h, address, 'First message');
    let frame = await h.screen.waitFor('First message', 8000);
    expect(frame).toMatch(/\+ {2}Alice Example +First message +\d\d:\d\d/);
    await h.screen.waitFor('1 new message');
    expect(h.bells()).toBe(1);
    await mail(h, address, 'Second message', 'bob@example.org');
    frame = await h.screen.waitFor('Second message', 8000);
    // Newest on top; a sender without a name shows its address.
    const lines = frame.split('\n');
    const second = lines.findIndex((l) => l.includes('Second message'));
    const first = lines.findIndex((l) => l.includes('First message'));
    expect(second).toBeLessThan(first);
    expect(lines[second]).toContain('bob@example.org');
    expect(frame).toContain('2 messages · 2 unread · 2 new');
    await waitFor(() => h!.bells() === 2, { message: 'the second bell' });
  });

  it('rings no bell when it is switched off; r checks at once', async () => {
    h = await startApp({ bell: false });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    await mail(h, address, 'Quiet message');
    await h.screen.press('r');
    await h.screen.waitFor('Quiet message');
    expect(h.bells()).toBe(0);
  });

  it('moves with j/k/arrows/g/G, opens with Enter (marking it read), and Esc returns', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    for (const s of ['Msg one', 'Msg two', 'Msg three']) await mail(h, address, s);
    await h.screen.press('r');
    await h.screen.waitFor('Msg one');
    await h.screen.press('j', KEY.ARROW_DOWN, 'k', 'G', KEY.ENTER);
    await h.screen.waitFor('Subject:  Msg one');
    await h.screen.press(KEY.ESC);
    let frame = await h.screen.waitFor('3 messages · 2 unread');
    expect(frame).toMatch(/^ {3}Alice Example +Msg one/m); // no marker: read
    await h.screen.press('g', KEY.ENTER);
    await h.screen.waitFor('Subject:  Msg three');
    await h.screen.press('q');
    frame = await h.screen.waitFor('3 messages · 1 unread');
    // Arrived while the inbox was watched and still not opened: marked new.
    expect(frame).toMatch(/^\+ {2}Alice Example +Msg two/m);
  });

  it('marks mail that was there before the inbox opened N until it is opened', async () => {
    const svc = await startTestService();
    const session = await createApi({ baseUrl: svc.baseUrl }).createSession({});
    for (const subject of ['Waiting one', 'Waiting two']) {
      await sendMail(svc, { from: 'Alice Example <alice@example.org>', to: session.email, subject, text: 'hello' });
    }
    h = await startApp({ svc, initialSession: session });
    let frame = await h.screen.waitFor('2 messages · 2 unread');
    // Unread, but not "new": they were not seen arriving.
    expect(frame).toMatch(/^N {2}Alice Example +Waiting two/m);
    expect(frame).toMatch(/^N {2}Alice Example +Waiting one/m);
    expect(frame).not.toMatch(/· \d+ new/);
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Subject:  Waiting two');
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor('2 messages · 1 unread');
    expect(frame).toMatch(/^ {3}Alice Example +Waiting two/m);
    expect(frame).toMatch(/^N {2}Alice Example +Waiting one/m);
    await h.close();
    h = undefined;
    await svc.close();
  });

  it('what the viewer said about a message is gone when the inbox is back', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await mail(h, address, 'No links here');
    await h.screen.press('r');
    await h.screen.waitFor('No links here');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Body of No links here');
    await h.screen.press('o');
    await h.screen.waitFor('This message has no links.');
    await h.screen.press(KEY.ESC);
    const frame = await h.screen.waitFor((f) => f.includes('j/k move') && f.includes('No links here'));
    expect(frame).not.toContain('This message has no links.');
  });

  it('asks before deleting: another key cancels, y deletes and the message is gone', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await mail(h, address, 'Delete me');
    await mail(h, address, 'Keep me');
    await h.screen.press('r');
    await h.screen.waitFor('Delete me');
    await h.screen.press('j', 'd');
    await h.screen.waitFor('Delete "Delete me"? y = yes, any other key = no');
    await h.screen.press('x');
    await h.screen.waitFor('Cancelled');
    expect(h.screen.frame()).toContain('Delete me');
    await h.screen.press('d', 'y');
    await h.screen.waitFor('Deleted "Delete me"');
    expect(h.screen.frame()).not.toMatch(/Alice Example +Delete me/);
    // Gone from the service too: a fresh listing does not bring it back.
    await h.screen.press('r');
    await h.screen.waitFor('1 message');
    expect(h.screen.frame()).not.toMatch(/Alice Example +Delete me/);
  });

  it('n asks before leaving a live address; the picker can go back to it with Esc', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await h.screen.press('n');
    await h.screen.waitFor(`Leave ${address} for a new address?`);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('Cancelled');
    await h.screen.press('n', 'y');
    // The picker says how to get back to the address it was opened over.
    await h.screen.waitFor((f) => f.includes('Random address on') && f.includes(`Esc goes back to ${address}`));
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor(address);
    await h.screen.press('n', 'y');
    await h.screen.waitFor('Random address on');
    await h.screen.press(KEY.ENTER);
    const frame = await h.screen.waitFor(/expires in/);
    expect(frame).not.toContain(address);
  });

  it('c copies the address', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await h.screen.press('c');
    await h.screen.waitFor('Copied address (test clipboard)');
    expect(h.copied).toEqual([address]);
  });

  it('/ filters by sender or subject (fast typing loses no key); Enter keeps it, Esc clears it', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await mail(h, address, 'Alpha news');
    await mail(h, address, 'Beta code 123', 'Beta Sender <beta@example.org>');
    await h.screen.press('r');
    await h.screen.waitFor('Beta code');
    await h.screen.press('/');
    await h.screen.waitFor('/filter by sender or subject');
    // Typed faster than a frame: every key its own chunk, none waiting for a render.
    for (const key of 'beta') h.screen.write(key);
    let frame = await h.screen.waitFor('matching "beta" (of 2)');
    expect(frame).not.toContain('Alpha news');
    await h.screen.press(KEY.ENTER);
    frame = await h.screen.waitFor('j/k move');
    expect(frame).toContain('matching "beta"');
    await h.screen.press('/', KEY.ESC);
    await h.screen.waitFor('Alpha news');
    // Esc in the list clears a filter that was kept with Enter, too.
    await h.screen.press('/');
    await h.screen.waitFor('/filter by sender or subject');
    for (const key of 'alpha') h.screen.write(key);
    await h.screen.waitFor('matching "alpha" (of 2)');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor((f) => f.includes('j/k move') && !f.includes('Beta code'));
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor((f) => f.includes('Beta code') && f.includes('Alpha news'));
    expect(frame).toContain('2 messages · ');
  });

  it('with a filter, the summary counts the unread and new messages that match, not the whole inbox', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await mail(h, address, 'Alpha news');
    await mail(h, address, 'Beta news');
    await mail(h, address, 'Shop receipt');
    await h.screen.press('r');
    await h.screen.waitFor('3 messages · 3 unread');
    // The newest (the receipt) is opened, so read; the other two stay unread.
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor(/^Subject: +Shop receipt/m);
    await h.screen.press(KEY.ESC);
    await h.screen.waitFor('3 messages · 2 unread');
    await h.screen.press('/');
    await h.screen.waitFor('/filter by sender or subject');
    for (const key of 'shop') h.screen.write(key);
    const frame = await h.screen.waitFor('matching "shop" (of 3)');
    expect(frame).toContain('1 message matching "shop" (of 3) · 0 unread');
    expect(frame).not.toMatch(/matching "shop" \(of 3\)[^\n]* new/);
    for (const key of [KEY.BACKSPACE, KEY.BACKSPACE, KEY.BACKSPACE, KEY.BACKSPACE, ...'news']) h.screen.write(key);
    await h.screen.waitFor('2 messages matching "news" (of 3) · 2 unread');
  });

  it('/ and the filter typed at once, before any frame, lose no key (each key waits for the screen the last opened)', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await mail(h, address, 'Alpha news');
    await mail(h, address, 'Beta code 123', 'Beta Sender <beta@example.org>');
    await h.screen.press('r');
    await h.screen.waitFor('Beta code');
    // Five keys, each its own chunk, written in one go: the filter input does not exist yet when they
    // are typed. Straight to Ink, "beta" went to the inbox (b = page up) before the input subscribed.
    for (const key of '/beta') h.screen.write(key);
    const frame = await h.screen.waitFor('matching "beta" (of 2)');
    expect(frame).not.toContain('Alpha news');
  });

  it('says when the service is down, keeps the keys working, and recovers', async () => {
    h = await startApp({ pollIntervalMs: 1000 });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    await h.svc.close();
    await h.screen.press('r');
    // The state and the countdown lead, the reason follows: a narrow line cuts the reason, not the countdown.
    // The line after the countdown (at 40 columns the address has a line of its own above it).
    const pollLine = (f: string) => {
      const lines = f.split('\n');
      return lines[lines.findIndex((l) => l.includes('expires in')) + 1] ?? '';
    };
    let frame = await h.screen.waitFor((f) =>
      /^Offline, retrying in \d+ s: The service is unreachable/.test(pollLine(f)),
    );
    expect(frame).toContain(address);
    h.screen.resize(40, 24);
    frame = await h.screen.waitFor(
      (f) => /^Offline, retrying in \d+ s/.test(pollLine(f)) && !f.includes('unreachable'),
    );
    expect(frame.split('\n')[0]?.trim()).toBe(address); // whole, not cut to make room for the countdown
    h.screen.resize(80, 24);
    await h.screen.press('?');
    await h.screen.waitFor('Keys: inbox');
    await h.screen.press('?');
    await h.screen.waitFor('No mail yet');
    expect(h.tokenNeverShown()).toBe(true);
  });

  it('cuts rows to the width without breaking wide characters, and re-lays out on resize', async () => {
    h = await startApp({ local: true });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, {
      from: '山田太郎 <yamada@example.jp>',
      to: address,
      subject: '確認コードのお知らせ：こちらがあなたのアカウントの確認コードです 🎉 とても長い件名',
      text: 'x',
    });
    await h.screen.press('r');
    let frame = await h.screen.waitFor('山田太郎');
    for (const line of frame.split('\n')) expect(textWidth(line)).toBeLessThanOrEqual(80);
    expect(frame).toContain('…');
    expect(frame).not.toContain('\ufffd');
    h.screen.resize(120, 40);
    frame = await h.screen.waitFor((f) => f.split('\n').some((l) => textWidth(l) > 80));
    expect(frame).toContain(`Local service: send mail to ${address} via SMTP`);
    expect(frame.split('\n').length).toBeLessThanOrEqual(39);
    h.screen.resize(80, 24);
    frame = await h.screen.waitFor((f) => f.split('\n').every((l) => textWidth(l) <= 80));
    expect(frame.split('\n').length).toBeLessThanOrEqual(23);
  });
});
