/**
 * A first mail with one key (issue 26), against the real service: in local mode the empty inbox says
 * to press T, which sends this address a sample message over real SMTP (the service counts it among the
 * messages its SMTP front end stored); it shows by itself, its code and link are detected, `c` copies the
 * code. Outside local mode T sends nothing and says why; a service that does not answer is said in words.
 * The empty inbox of a service on this machine shows a python3 command instead of swaks, and that very
 * command delivers.
 */
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { pythonSendLines } from '../../../src/tui/inbox/empty-lines';
import { sampleMessage } from '../../../src/tui/sample/sample-message';
import { closedPort } from '../../harness/ports';
import { startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { pickFirstDomain, startApp, type AppHarness, closeAppsAfterEach } from '../harness';
import { joined, KEY } from '../ui';

let h: AppHarness | undefined;
closeAppsAfterEach();

const stored = (app: AppHarness) => app.svc.ops.stats().smtp.messagesStored;

describe('T in local mode', () => {
  it('the empty inbox says to press T; T sends a sample over SMTP, listed at the next check, with its code and link; c copies the code', async () => {
    h = await startApp({ local: true, columns: 100 });
    const address = await pickFirstDomain(h);
    let frame = await h.screen.waitFor('No mail yet');
    expect(frame).toContain(`Press T to send it a sample message via SMTP 127.0.0.1:${h.svc.smtpPort}`);
    expect(frame).not.toContain('swaks');
    const before = stored(h);
    await h.screen.press('T');
    // The harness's provider has no push (the pty test has: test/e2e/local-mode.test.ts): r lists it.
    await h.screen.waitFor(`Sample message sent via SMTP 127.0.0.1:${h.svc.smtpPort}`);
    await waitFor(() => stored(h!) === before + 1, { message: 'the sample stored by the SMTP front end' });
    const [listed] = await h.api.checkMail(h.tokens[0]!);
    expect(listed?.subject).toBe('Your tempmail-tui sample: confirm this address');
    await h.screen.press('r');
    frame = await h.screen.waitFor(/Your tempmail-tui sample/);
    await h.screen.press(KEY.ENTER);
    frame = await h.screen.waitFor(/^Code: +\d{6}/m);
    const code = /^Code: +(\d{6})/m.exec(frame)![1]!;
    expect(frame).toMatch(/^Link: +\[1\] https:\/\/example\.com\/confirm\?token=[0-9a-f]{18}$/m);
    expect(frame).toMatch(/^From: +tempmail-tui sample <sample@example\.com>/m);
    expect(frame).toContain(`To:       ${address}`);
    expect(frame).toMatch(/── HTML part · /);
    await h.screen.press('c');
    await h.screen.waitFor(`Copied code ${code}`);
    expect(h.copied).toEqual([code]);
  });

  it('a port where nothing listens is said in words, never an error code', async () => {
    const port = await closedPort();
    h = await startApp({ props: { local: { smtpHost: '127.0.0.1', smtpPort: port } } });
    await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    await h.screen.press('T');
    const frame = await h.screen.waitFor('Sample message not sent');
    expect(joined(frame)).toContain(
      `Sample message not sent: nothing answers at 127.0.0.1:${port} (has the local service stopped?)`,
    );
    expect(frame).not.toMatch(/E[A-Z]{4,}/);
  });

  it("a refusal is said with the service's own words", async () => {
    // A service of another domain: to it, this address is a relay attempt.
    const other = await startTestService({ domains: ['other.test'] });
    try {
      h = await startApp({ props: { local: { smtpHost: other.smtpHost, smtpPort: other.smtpPort } } });
      await pickFirstDomain(h);
      await h.screen.waitFor('No mail yet');
      await h.screen.press('T');
      const frame = await h.screen.waitFor('Sample message not sent');
      expect(joined(frame)).toMatch(
        new RegExp(
          `Sample message not sent: the service at 127\\.0\\.0\\.1:${other.smtpPort} answered: 550 5\\.7\\.1 `,
        ),
      );
    } finally {
      await other.close();
    }
  });

  it('one at a time: T again while a send waits says so; a service that never greets is said in words', async () => {
    // A port that takes the connection and says nothing: the send waits for a greeting that never comes.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      h = await startApp({ props: { local: { smtpHost: '127.0.0.1', smtpPort: port } } });
      await pickFirstDomain(h);
      await h.screen.waitFor('No mail yet');
      await h.screen.press('T');
      await h.screen.waitFor(`Sending a sample message via SMTP 127.0.0.1:${port}…`);
      await h.screen.press('T');
      await h.screen.waitFor('Still sending the sample message…');
      const frame = await h.screen.waitFor('Sample message not sent', 15_000);
      expect(joined(frame)).toContain(`Sample message not sent: no answer from 127.0.0.1:${port} in time`);
    } finally {
      silent.close();
    }
  });
});

describe('T outside local mode', () => {
  it('sends nothing and says why', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    await h.screen.waitFor('No mail yet');
    const before = stored(h);
    await h.screen.press('T');
    const frame = await h.screen.waitFor('No sample sent');
    expect(joined(frame)).toContain(
      `No sample sent: T mails one only through the app's own local service, and ${address} lives on`,
    );
    expect(stored(h)).toBe(before);
  });

  it('on a service on this machine the empty inbox shows a python3 command, and that command delivers', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    const frame = await h.screen.waitFor('No mail yet');
    const lines = pythonSendLines('127.0.0.1', 2525, address);
    expect(frame).toContain("Send it a message from this machine to the service's SMTP port (2525 unless");
    for (const line of lines) expect(frame).toContain(line);
    expect(frame).not.toContain('swaks');
    // The same lines, pasted whole into a shell, with the test service's port (in this process: the
    // shell runs beside it, never blocking it): the message arrives.
    const command = pythonSendLines('127.0.0.1', h.svc.smtpPort, address).join('\n');
    const run = await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8', timeout: 20_000 });
    expect(run.stderr).toBe('');
    const [listed] = await h.api.checkMail(h.tokens[0]!);
    expect(listed?.subject).toBe('Hello');
  });
});

describe('the sample message', () => {
  it('carries a new code and token each time, the same in both parts', () => {
    const a = sampleMessage('a@tempmail.test');
    const b = sampleMessage('a@tempmail.test');
    expect(a.code).toMatch(/^[1-9]\d{5}$/);
    expect([a.code, a.link]).not.toEqual([b.code, b.link]);
    for (const part of [a.text, a.html]) {
      expect(part).toContain(a.code);
      expect(part).toContain(a.link);
    }
  });
});
