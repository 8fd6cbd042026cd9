/**
 * The marks book follows the listing (issue 38): when messages are deleted on the server and the app's
 * next check lists the inbox without them, their marks go from the app's book, while a message still
 * listed keeps its `[code …]` on screen. The viewer open on a message deleted meanwhile goes on showing
 * it until the user leaves it. Before, the marks of every message ever fetched stayed until the book's
 * bound (5,000 an address) pushed them out.
 */
import { describe, expect, it } from 'vitest';
import { refKey } from '../../../src/client/providers';
import { MarkBook } from '../../../src/tui/session/mark-book';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { closeAppsAfterEach, pickFirstDomain, startApp } from '../harness';
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
});
