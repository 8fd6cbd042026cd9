/**
 * Attachments in the viewer, against the real service: listed with name, type and size; `a` saves one
 * (asking which when there are several) into the download directory under a safe name, as a new file,
 * mode 0600, with the exact bytes (a name already there is asked about: attachments-overwrite.test.tsx);
 * a service without the attachment route is named as such.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../../src/client/tempmail/tempmail-client';
import { sendMail, startTestService } from '../../harness/service';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { joined, KEY } from '../ui';

let h: AppHarness | undefined;
const cleanup: (() => Promise<void> | void)[] = [];
closeAppsAfterEach(async () => {
  for (const f of cleanup.splice(0)) await f();
});

function downloads(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tui-dl-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'Downloads'); // not there yet: the app creates it
}

const PDFISH = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255])]);

async function openMailWithFiles(app: AppHarness) {
  const address = await pickFirstDomain(app);
  await sendMail(app.svc, {
    to: address,
    subject: 'Your documents',
    text: 'Two files attached.',
    attachments: [
      { filename: 'report.pdf', content: PDFISH, contentType: 'application/pdf' },
      { filename: '../../.bashrc\u202etxt.sh', content: 'echo hi\n', contentType: 'text/x-sh' },
    ],
  });
  await app.screen.press('r');
  await app.screen.waitFor('Your documents');
  await app.screen.press(KEY.ENTER);
  return app.screen.waitFor('Two files attached.');
}

describe('attachments', () => {
  it('lists name, type and size; a then a number saves that one, new file, 0600, exact bytes; k keeps both', async () => {
    const dir = downloads();
    h = await startApp({ props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } } });
    const frame = await openMailWithFiles(h);
    expect(frame).toMatch(/^Attached: \[1\] report\.pdf · application\/pdf · 18 B$/m);
    expect(frame).toMatch(/^ {10}\[2\] \S+ · text\/x-sh · 8 B$/m);
    expect(frame).not.toContain('\u202e');

    await h.screen.press('a');
    await h.screen.waitFor('Save which attachment? 1-2 (of 2), any other key cancels');
    await h.screen.press('q');
    await h.screen.waitFor('Cancelled');
    await h.screen.press('a', '1');
    await h.screen.waitFor(`Saved to ${join(dir, 'report.pdf')} (18 B)`);
    const first = join(dir, 'report.pdf');
    expect(readFileSync(first).equals(PDFISH)).toBe(true);
    expect(statSync(first).mode & 0o777).toBe(0o600);

    // Again: the name is taken, so it asks; k keeps both (a new, numbered file; the first one untouched).
    writeFileSync(first, 'edited by the user');
    await h.screen.press('a', '1');
    await h.screen.waitFor('report.pdf exists in');
    await h.screen.press('k');
    await h.screen.waitFor(`to ${join(dir, 'report (1).pdf')}`);
    expect(readFileSync(first, 'utf8')).toBe('edited by the user');
    expect(readFileSync(join(dir, 'report (1).pdf')).equals(PDFISH)).toBe(true);

    // A hostile name: no path, no leading dot, no bidi override; it lands inside the directory.
    await h.screen.press('a', '2');
    const saved = await h.screen.waitFor(/Saved to .+ \(8 B\)/);
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(3);
    const odd = files.find((f) => !f.startsWith('report'))!;
    expect(odd).not.toMatch(/^\.|\/|\u202e/);
    expect(readFileSync(join(dir, odd), 'utf8')).toBe('echo hi\n');
    expect(saved).toContain(join(dir, odd));
    expect(h.tokenNeverShown()).toBe(true);
  });

  it('with one attachment, a saves it at once; with none, a says so', async () => {
    const dir = downloads();
    h = await startApp({ props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } } });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, {
      to: address,
      subject: 'One file',
      text: 'Just one.',
      attachments: [{ filename: 'notes.txt', content: 'my notes\n', contentType: 'text/plain' }],
    });
    await sendMail(h.svc, { to: address, subject: 'No file', text: 'Nothing attached.' });
    await h.screen.press('r');
    await h.screen.waitFor('2 messages');
    await h.screen.press(KEY.ENTER);
    let frame = await h.screen.waitFor('Nothing attached.');
    // The footer offers `a` only where there is something to save.
    expect(frame).not.toContain('a save');
    await h.screen.press('a');
    await h.screen.waitFor('This message has no attachments.');
    await h.screen.press(KEY.ESC, 'j', KEY.ENTER);
    frame = await h.screen.waitFor('Just one.');
    expect(frame).toMatch(/^Attached: notes\.txt · text\/plain · 9 B$/m);
    expect(frame).toContain('a save');
    await h.screen.press('a');
    await h.screen.waitFor(`Saved to ${join(dir, 'notes.txt')} (9 B)`);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
  });

  it('past the 9th: a number of two digits picks one (Enter ends a number that could go on)', async () => {
    const dir = downloads();
    h = await startApp({ props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } } });
    const address = await pickFirstDomain(h);
    const attachments = Array.from({ length: 12 }, (_, i) => ({
      filename: `part-${i + 1}.txt`,
      content: `part ${i + 1}\n`,
    }));
    await sendMail(h.svc, { to: address, subject: 'Twelve files', text: 'A dozen.', attachments });
    await h.screen.press('r');
    await h.screen.waitFor('Twelve files');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('… and 8 more');
    const saved = async (n: number) => {
      await h!.screen.waitFor(`Saved to ${join(dir, `part-${n}.txt`)} (`);
      expect(readFileSync(join(dir, `part-${n}.txt`), 'utf8')).toBe(`part ${n}\n`);
    };
    await h.screen.press('a');
    await h.screen.waitFor('Save which attachment? Number 1-12 then Enter; any other key cancels');
    await h.screen.press('1', '2'); // 12: no longer number can follow, saved at once
    await saved(12);
    await h.screen.press('a', '1');
    await h.screen.waitFor('Attachment 1… (another digit, or Enter)');
    await h.screen.press(KEY.ENTER);
    await saved(1);
    await h.screen.press('a', '1', '0');
    await saved(10);
    await h.screen.press('a', '9');
    await saved(9);
    await h.screen.press('a', '1', '3');
    await h.screen.waitFor('No attachment 13: this message has 12.');
    await h.screen.press('a', '1', 'q');
    await h.screen.waitFor('Cancelled');
    expect(readdirSync(dir).sort()).toEqual(['part-1.txt', 'part-10.txt', 'part-12.txt', 'part-9.txt']);
  });

  it('a download directory that cannot be made: the status line leads with the reason, the folder last', async () => {
    const blocked = downloads();
    writeFileSync(join(blocked, '..', 'file'), 'x');
    const dir = join(blocked, '..', 'file', 'Downloads');
    h = await startApp({ props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } } });
    const address = await pickFirstDomain(h);
    await sendMail(h.svc, {
      to: address,
      subject: 'One file',
      text: 'Just one.',
      attachments: [{ filename: 'notes.txt', content: 'x' }],
    });
    await h.screen.press('r');
    await h.screen.waitFor('One file');
    await h.screen.press(KEY.ENTER);
    await h.screen.waitFor('Just one.');
    await h.screen.press('a');
    const frame = await h.screen.waitFor('notes.txt not saved');
    // The status wraps; its first line leads with the reason.
    expect(
      frame.split('\n').some((line) => line.startsWith('notes.txt not saved: a part of the path is not a directory')),
    ).toBe(true);
    expect(joined(frame)).toMatch(/notes\.txt not saved: a part of the path is not a directory \(in \//);
  });

  it('a service without the attachment route: "This service does not serve attachment bytes"', async () => {
    const svc = await startTestService();
    cleanup.push(() => svc.close());
    // The reference service behind a proxy that has no /attachment route: a SPEC-only service.
    const target = new URL(svc.baseUrl);
    const proxy: Server = createServer((req, res) => {
      if ((req.url ?? '').startsWith('/attachment')) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<h1>Not Found</h1>');
        return;
      }
      const options = {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      };
      const upstream = request(options, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;

    const dir = downloads();
    h = await startApp({
      svc,
      wrapApi: () => {
        const viaProxy = createApi({ baseUrl: proxyUrl, retries: 0 });
        const createSession: typeof viaProxy.createSession = async (o) => {
          const s = await viaProxy.createSession(o);
          h?.tokens.push(s.token);
          return s;
        };
        return { ...viaProxy, createSession };
      },
      props: { settings: { pollIntervalMs: 60_000, bell: false, downloadDir: dir } },
    });
    await openMailWithFiles(h);
    await h.screen.press('a', '1');
    await h.screen.waitFor('report.pdf not saved: This service does not serve attachment bytes');
    expect(() => readdirSync(dir)).toThrow(); // nothing written, not even the directory
    expect(h.tokenNeverShown()).toBe(true);
  });
});
