/**
 * Reading as mutt users do, against the real service over real SMTP: J/K from message to message (the
 * filtered list, the view kept, the ends said), t between the text and the HTML part (kept for the
 * session), R the raw source (or, without the route, the fields the service returned; without the
 * capability, the parsed fields), S the message saved as .eml with the attachments' "file exists" rules.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { MailProvider } from '../../../src/client/client-types';
import { createProviderSet } from '../../../src/client/providers';
import { tempmailProvider } from '../../../src/client/tempmail/tempmail-provider';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { sendMail, sendRaw, startTestService } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

const subjectRow = (frame: string) => /^Subject: +(.*)$/m.exec(frame)?.[1]?.trim();

/** An address with `subjects` sent in this order (so the last is on top), listed. */
async function inboxWith(
  app: AppHarness,
  subjects: string[],
  extra: Partial<Parameters<typeof sendMail>[1]> = {},
): Promise<string> {
  const address = await pickFirstDomain(app);
  for (const subject of subjects)
    await sendMail(app.svc, { to: address, subject, text: `Body of ${subject}.`, ...extra });
  await app.screen.press('r');
  await app.screen.waitFor(`${subjects.length} message${subjects.length === 1 ? '' : 's'} ·`);
  return address;
}

function downloads(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tui-eml-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('J and K', () => {
  it('open the next and previous message of the list as filtered, keep the view, say when at an end', async () => {
    h = await startApp();
    await inboxWith(h, ['Alpha report', 'Beta notice', 'Gamma report', 'Delta report']);
    // Filtered: Beta is not in the list, so J from Gamma goes to Alpha.
    await h.screen.press('/', ...'report', KEY.ENTER);
    await h.screen.waitFor('3 messages matching "report"');
    await h.screen.press(KEY.ENTER);
    let frame = await h.screen.waitFor('Body of Delta report.');
    // Headers hidden: the view the next message keeps.
    await h.screen.press('H');
    frame = await h.screen.waitForGone('From:');
    await h.screen.press('J');
    frame = await h.screen.waitFor('Body of Gamma report.');
    expect(frame).not.toContain('From:');
    expect(subjectRow(frame)).toBe('Gamma report');
    await h.screen.press('J');
    frame = await h.screen.waitFor('Body of Alpha report.');
    await h.screen.press('J');
    frame = await h.screen.waitFor('No next message: this is the last one in the list');
    expect(subjectRow(frame)).toBe('Alpha report');
    await h.screen.press('K', 'K', 'K');
    frame = await h.screen.waitFor('No previous message: this is the first one in the list');
    expect(subjectRow(frame)).toBe('Delta report');
    // Back in the list, on the message left, every one of them read; Beta untouched.
    await h.screen.press('q');
    frame = await h.screen.waitFor('3 messages matching');
    await h.screen.press(KEY.ESC);
    frame = await h.screen.waitFor('4 messages · 1 unread');
    expect(frame).toMatch(/^\+ {2}Sender +Beta notice/m);
  });
});

describe('t', () => {
  it('switches between the HTML and the text part; the header line says which; the choice stays for the session', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, { to: address, subject: 'Only text', text: 'Nothing but text here.' });
    await sendMail(h.svc, {
      to: address,
      subject: 'Two parts',
      text: 'Words of the TEXT part.',
      html: '<p>Words of the <b>HTML</b> part.</p>',
    });
    await h.screen.press('r');
    await h.screen.waitFor('2 messages');
    await h.screen.press(KEY.ENTER);
    let frame = await h.screen.waitFor('Words of the HTML part.');
    expect(frame).toMatch(/── HTML part · lines 1-1 of 1 ─/);
    await h.screen.press('t');
    frame = await h.screen.waitFor('Words of the TEXT part.');
    expect(frame).toMatch(/── text part · lines 1-1 of 1 ─/);
    expect(frame).toContain('Showing the text part');
    // A message with one part says so and shows it; its rule names no part.
    await h.screen.press('J');
    frame = await h.screen.waitFor('Nothing but text here.');
    expect(frame).not.toMatch(/part ·/);
    await h.screen.press('t');
    await h.screen.waitFor('This message has only a text part.');
    // Reopened later: still the text part.
    await h.screen.press('q', 'g', KEY.ENTER);
    frame = await h.screen.waitFor('Words of the TEXT part.');
    expect(frame).toMatch(/── text part ·/);
  });
});

describe('R', () => {
  it('shows the raw source, scrollable, and R again the message; it stays on through J', async () => {
    h = await startApp();
    await inboxWith(h, ['First one', 'Second one'], { html: '<p>Rich <i>body</i></p>' });
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Rich body');
    await h.screen.press('R');
    let frame = await h.screen.waitFor('MIME-Version: 1.0');
    expect(frame).toMatch(/── source · lines 1-\d+ of \d+ ─/);
    expect(frame).toMatch(/^Content-Type: multipart\/alternative;/m);
    expect(frame).toMatch(/^Message-ID: </m);
    await h.screen.press('G');
    frame = await h.screen.waitFor(/^<p>Rich <i>body<\/i><\/p>$/m);
    await h.screen.press('J');
    frame = await h.screen.waitFor((f) => subjectRow(f) === 'First one' && /^Subject: First one$/m.test(f));
    await h.screen.press('R');
    frame = await h.screen.waitFor('Rich body');
    expect(frame).not.toContain('MIME-Version');
  });

  it('a service without the raw route: every field it returned, under a note; S says there is no .eml', async () => {
    const svc = await startTestService();
    cleanup.push(() => svc.close());
    // A front for the real service that knows no /raw-mail, as services of the bare interface do not.
    const front = await frontWithout(svc.baseUrl, '/raw-mail');
    cleanup.unshift(() => new Promise<void>((resolve) => front.close(() => resolve())));
    const api = createApi({ baseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}/`, retries: 0 });
    h = await startApp({
      svc,
      wrapApi: () => api,
      props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: downloads() } },
    });
    await inboxWith(h, ['Routed']);
    await h.screen.press(KEY.ENTER, 'R');
    const frame = await h.screen.waitFor('[This service gives no raw message; below: every field it returned.]');
    expect(frame).toMatch(/── fields · lines/);
    expect(frame).toMatch(/^subject: Routed$/m);
    expect(frame).toMatch(/^body_text:$/m);
    await h.screen.press('S');
    await h.screen.waitFor('No .eml to save: this service gives no raw message (R shows what it gives)');
  });

  it('a client that cannot ask for sources at all: the parsed message, with a note', async () => {
    h = await startApp({
      providers: (ref, api) => {
        const { readSource: _none, ...provider }: MailProvider = tempmailProvider(api, ref.baseUrl);
        return createProviderSet({ choices: [ref], known: [[ref, provider]] });
      },
    });
    await inboxWith(h, ['Parsed only']);
    await h.screen.press(KEY.ENTER, 'R');
    const frame = await h.screen.waitFor('[This service gives no raw message; below: every field read from it.]');
    expect(frame).toMatch(/^subject: Parsed only$/m);
    expect(frame).toMatch(/^from: Sender <sender@example.org>$/m);
    await h.screen.press('S');
    await h.screen.waitFor('No .eml to save');
  });
});

describe('S', () => {
  it('saves the message byte for byte as "<subject>.eml" (a name without spaces), 0600; a taken name asks like an attachment', async () => {
    const dir = downloads();
    h = await startApp({ props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } } });
    const address = await pickFirstDomain(h);
    const raw = Buffer.from(`From: a@example.org\r\nTo: ${address}\r\nSubject: Keep me\r\n\r\nA body to keep.\r\n`);
    await sendRaw(h.svc, address, raw);
    await h.screen.press('r');
    await h.screen.waitFor('Keep me');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('A body to keep.');
    await h.screen.press('S');
    await h.screen.waitFor(/Saved to .*Keep-me\.eml/);
    const file = join(dir, 'Keep-me.eml');
    expect(readFileSync(file).equals(raw)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Again: the name is taken. k keeps both; another key leaves it; o replaces it.
    writeFileSync(file, 'older');
    await h.screen.press('S');
    await h.screen.waitFor('Keep-me.eml exists in');
    await h.screen.press('k');
    await h.screen.waitFor(/Saved to .*Keep-me \(1\)\.eml/);
    expect(readFileSync(join(dir, 'Keep-me (1).eml')).equals(raw)).toBe(true);
    await h.screen.press('S');
    await h.screen.waitFor('Keep-me.eml exists in');
    await h.screen.press('x');
    await h.screen.waitFor('left as it was');
    expect(readFileSync(file, 'utf8')).toBe('older');
    await h.screen.press('S');
    await h.screen.waitFor('Keep-me.eml exists in');
    await h.screen.press('o');
    await h.screen.waitFor(/Replaced .*Keep-me\.eml/);
    expect(readFileSync(file).equals(raw)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['Keep-me (1).eml', 'Keep-me.eml']);
  });
});

/** An HTTP front for `target` that answers 404 (an HTML page) on `path` and passes everything else on. */
async function frontWithout(target: string, path: string): Promise<Server> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === path) {
      res.writeHead(404, { 'content-type': 'text/html' });
      return res.end('<html><body>Not Found</body></html>');
    }
    const upstream = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
