/**
 * Read state per saved address (issue 14 point 14, issue 16), against the real service and a real
 * read-state.json in a temp dir: what was opened stays read across a restart and across switching
 * addresses, goes with a forgotten address, and is told to a service that keeps read state. The list
 * marks unread rows (N, bold only where colour is on) and rows with attachments (@); the viewer's
 * header counts the unread.
 */
import chalk from 'chalk';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import type { MailProvider } from '../../../src/client/client-types';
import { createProviderSet } from '../../../src/client/providers';
import { tempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import { openReadState, type ReadStateStore } from '../../../src/state/read-state';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { sendMail, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

async function setting(): Promise<{ svc: TestService; store: ReadStateStore; dir: string }> {
  const svc = await startTestService();
  const dir = mkdtempSync(join(tmpdir(), 'tui-read-'));
  cleanup.push(
    () => svc.close(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  return { svc, store: openReadState({ dir }), dir };
}

const savedIds = (file: string) =>
  (JSON.parse(readFileSync(file, 'utf8')) as { addresses: { email: string; read: string[] }[] }).addresses;

describe('read state', () => {
  it('is kept across a restart: an opened message is not unread when the app starts again', async () => {
    const { svc, store } = await setting();
    const session = await createApi({ baseUrl: svc.baseUrl }).createSession({});
    for (const subject of ['Old one', 'New one'])
      await sendMail(svc, { to: session.email, subject, text: `${subject} body` });
    h = await startApp({ svc, initialSession: session, props: { readMarks: store } });
    await h.screen.waitFor('2 messages · 2 unread');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('New one body');
    await h.screen.press('q');
    await h.screen.waitFor('2 messages · 1 unread');
    // Saved a moment after the open (one write for a burst of them).
    await waitFor(() => (savedIds(store.file)[0]?.read.length === 1 ? true : null), { message: 'the read mark saved' });
    h.screen.unmount();
    h = undefined;

    h = await startApp({ svc, initialSession: session, props: { readMarks: store } });
    const frame = await h.screen.waitFor('2 messages · 1 unread');
    expect(frame).toMatch(/^ {3}Sender +New one/m);
    expect(frame).toMatch(/^N {2}Sender +Old one/m);
  });

  it('is kept across switching addresses, and goes when the address is forgotten', async () => {
    const { svc, store, dir } = await setting();
    const saved = { store: openSavedSessions({ dir }), serviceKey: svc.baseUrl };
    h = await startApp({ svc, props: { saved, readMarks: store } });
    await h.screen.waitFor('Random address on');
    await h.screen.press('1');
    const first = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/.exec(await h.screen.waitFor(/expires in \d/))![1]!;
    await sendMail(svc, { to: first, subject: 'Read me here', text: 'body one' });
    await sendMail(svc, { to: first, subject: 'Leave me', text: 'body two' });
    await h.screen.press('r');
    await h.screen.waitFor('2 messages · 2 unread');
    await h.screen.press('j', KEY.ENTER);
    await h.screen.waitFor('body one');
    // To a second address and back: the mark is still there.
    await h.screen.press('q', 'n', 'y');
    await h.screen.waitFor('Random address on');
    await h.screen.press('1');
    await h.screen.waitFor((f) => /expires in \d/.test(f) && !f.includes(first));
    await h.screen.press('s');
    await h.screen.waitFor(first);
    await h.screen.press(KEY.ARROW_DOWN, KEY.ENTER);
    let frame = await h.screen.waitFor((f) => f.startsWith(first) && f.includes('2 messages'));
    expect(frame).toContain('2 messages · 1 unread');
    expect(frame).toMatch(/^ {3}Sender +Read me here/m);
    // Forgotten: its marks go with it.
    await waitFor(() => (savedIds(store.file).some((a) => a.email === first) ? true : null));
    await h.screen.press('x', 'y');
    await h.screen.waitFor('Random address on');
    frame = h.screen.frame();
    expect(savedIds(store.file).some((a) => a.email === first)).toBe(false);
  });

  it('tells a provider that keeps read state, once per message', async () => {
    const marked: string[] = [];
    h = await startApp({
      providers: (ref, api) => {
        const provider: MailProvider = {
          ...tempmailProvider(api, ref.baseUrl),
          markRead: async (_session, id) => void marked.push(id),
        };
        return createProviderSet({ choices: [ref], known: [[ref, provider]] });
      },
    });
    await h.screen.waitFor('Random address on');
    await h.screen.press(KEY.ENTER);
    const address = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/.exec(await h.screen.waitFor(/expires in \d/))![1]!;
    await sendMail(h.svc, { to: address, subject: 'Mark me', text: 'x' });
    await h.screen.press('r');
    await h.screen.waitFor('Mark me');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Subject:  Mark me');
    await h.screen.press('q', KEY.ENTER);
    await h.screen.waitFor('Subject:  Mark me');
    expect(marked).toEqual(['1']);
  });
});

describe('the list', () => {
  const level = chalk.level;
  beforeAll(() => {
    chalk.level = 1;
  });
  afterAll(() => {
    chalk.level = level;
  });

  for (const noColor of [false, true]) {
    it(`marks unread rows N${noColor ? ' without bold under NO_COLOR' : ' and bold'}, rows with attachments @, the unread count in the viewer's header`, async () => {
      h = await startApp({ props: { noColor } });
      await h.screen.waitFor('Random address on');
      await h.screen.press(KEY.ENTER);
      const address = /([a-z0-9._-]+@[a-z0-9.-]+\.test)/.exec(await h.screen.waitFor(/expires in \d/))![1]!;
      await sendMail(h.svc, { to: address, subject: 'Plain words', text: 'x' });
      await sendMail(h.svc, {
        to: address,
        subject: 'With a file',
        text: 'y',
        attachments: [{ filename: 'a.txt', content: 'a' }],
      });
      await h.screen.press('r');
      let frame = await h.screen.waitFor('2 messages · 2 unread');
      expect(frame).toMatch(/^\+@ Sender +With a file/m);
      expect(frame).toMatch(/^\+ {2}Sender +Plain words/m);
      await h.screen.press(KEY.ENTER);
      frame = await h.screen.waitFor('Subject:  With a file');
      expect(frame.split('\n')[1]).toMatch(/ 1 unread$/);
      await h.screen.press('q');
      frame = await h.screen.waitFor('2 messages · 1 unread');
      expect(frame).toMatch(/^ @ Sender +With a file/m);
      const raw = h.screen.frames.at(-1)!;
      const rowOf = (subject: string) => raw.split('\n').find((l) => l.includes(subject)) ?? '';
      // Bold (SGR 1) on the unread row only, and only where colour is on.
      expect(rowOf('Plain words').includes('\x1b[1m')).toBe(!noColor);
      expect(rowOf('With a file').includes('\x1b[1m')).toBe(false);
    });
  }
});
