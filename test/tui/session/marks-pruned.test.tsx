/**
 * The marks book follows the listing (issue 38): when messages are deleted on the server and the app's
 * next check lists the inbox without them, their marks go from the app's book, while a message still
 * listed keeps its `[code …]` on screen. The viewer open on a message deleted meanwhile goes on showing
 * it until the user leaves it. A provider that lists only its newest few: the message scrolled off loses
 * its mark and its cached body (listed again, its body is fetched again). Before, the marks of every
 * message ever fetched stayed until the book's bound (5,000 an address) pushed them out, and the bodies
 * until the cache's (200).
 */
import { describe, expect, it } from 'vitest';
import { refKey } from '../../../src/client/providers';
import { MarkBook } from '../../../src/tui/session/mark-book';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { closeAppsAfterEach, countingReads, pickFirstDomain, type ReadStats, startApp } from '../harness';
import { KEY } from '../ui';

closeAppsAfterEach();

const CODES = { old: '111111', opened: '222222', kept: '333333' } as const;

describe('marks of deleted messages', () => {
  it('are forgotten once a check lists the inbox without them; a listed message keeps its [code …]', async () => {
    const markBook = new MarkBook();
    // The app checks by itself every 300 ms: the viewer has no key that checks.
    const h = await startApp({ pollIntervalMs: 300, props: { markBook } });
    const address = await pickFirstDomain(h);
    for (const [name, code] of Object.entries(CODES)) {
      await sendMail(h.svc, { to: address, subject: `Sign up ${name}`, text: `Hi,\n\nyour code is ${code}\n` });
      // One at a time, so the list's order (newest first) is kept, opened, old.
      await h.screen.waitFor(`Sign up ${name}`);
    }
    await h.screen.waitFor((f) => Object.values(CODES).every((c) => f.includes(`[code ${c}]`)), 20_000);
    const listed = await h.api.checkMail(h.tokens[0]!);
    const idOf = (name: string) => listed.find((m) => m.subject === `Sign up ${name}`)!.id;
    const marks = markBook.of(`${refKey({ provider: 'tempmail', baseUrl: h.svc.baseUrl })} ${address.toLowerCase()}`);
    expect(Object.keys(CODES).map((name) => marks.get(idOf(name))?.code)).toEqual(Object.values(CODES));

    // The middle one opened, then it and the oldest deleted on the server (another client).
    // The selection stayed on the first to arrive (mail on top never moves it): to the top, then one down.
    await h.screen.press('g', 'j', KEY.ENTER);
    await h.screen.waitFor(`your code is ${CODES.opened}`);
    for (const name of ['old', 'opened']) await h.api.deleteMail(h.tokens[0]!, idOf(name));
    await waitFor(() => (marks.get(idOf('old')) === undefined ? true : null), {
      timeoutMs: 10_000,
      message: 'the deleted message`s mark forgotten',
    });
    expect(marks.get(idOf('opened'))).toBeUndefined();
    // The viewer still shows the message it was opened on.
    expect(h.screen.frame()).toContain(`your code is ${CODES.opened}`);

    await h.screen.press('q');
    const frame = await h.screen.waitFor((f) => f.includes(`[code ${CODES.kept}]`) && !f.includes('Sign up old'));
    expect(frame).not.toContain('Sign up opened');
    expect(marks.get(idOf('kept'))?.code).toBe(CODES.kept);
  }, 40_000);

  it('a provider listing its newest few: the message scrolled off loses its mark and body', async () => {
    const stats: ReadStats = { reads: [], inFlight: 0, maxInFlight: 0 };
    // The real client, its listing cut to the newest `newest` as such a provider lists.
    let newest = 2;
    const h = await startApp({
      pollIntervalMs: 300,
      wrapApi: (api) => {
        const counted = countingReads(stats)(api);
        return { ...counted, checkMail: async (token) => (await counted.checkMail(token)).slice(0, newest) };
      },
    });
    const address = await pickFirstDomain(h);
    const names = ['old', 'opened', 'kept'] as const;
    const send = async (name: (typeof names)[number]) => {
      await sendMail(h.svc, { to: address, subject: `Sign up ${name}`, text: `Hi,\n\nyour code is ${CODES[name]}\n` });
      await h.screen.waitFor(`[code ${CODES[name]}]`, 20_000);
    };
    await send('old');
    await send('opened');
    const all = await h.api.checkMail(h.tokens[0]!);
    const old = all.find((m) => m.subject === 'Sign up old')!.id;
    const readsOf = (id: string) => stats.reads.filter((r) => r === Number(id)).length;
    expect(readsOf(old)).toBe(1);
    // A third message: the oldest scrolls off the provider's list.
    await send('kept');
    await h.screen.waitForGone('Sign up old');
    // The provider lists more again (newer ones deleted there, say): the oldest is back, without its body
    // or mark, so it is fetched again for its row.
    newest = 10;
    await h.screen.waitFor(`[code ${CODES.old}]`, 20_000);
    expect(readsOf(old)).toBe(2);
  }, 40_000);
});
