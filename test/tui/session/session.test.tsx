import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTerminalSafe } from '../../../src/text/safe-text';
import { sendMail, sendRaw, startTestService } from '../../harness/service';
import { startApp, pickFirstDomain, type AppHarness, closeAppsAfterEach } from '../harness';
import { KEY } from '../ui';
import { HOSTILE_DIR } from '../../harness/fixtures';

let h: AppHarness | undefined;
closeAppsAfterEach();

describe('session lifetime', () => {
  it('counts down with the clock, stops polling when the service says expired, and n goes straight to the picker', async () => {
    let t = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = () => t;
    const svc = await startTestService({ lifetimeSeconds: 120 }, { clock });
    h = await startApp({ svc, props: { clock } });
    await pickFirstDomain(h);
    await h.screen.waitFor('expires in 2:00');
    t += 61_000;
    await h.screen.waitFor('expires in 0:59');
    t += 120_000;
    await h.screen.press('r');
    const frame = await h.screen.waitFor('This address has expired · press n for a new address');
    expect(frame).toMatch(/ expired\n/);
    expect(frame).not.toMatch(/-\d+:\d\d/);
    // The empty inbox no longer promises checks that will not come.
    expect(frame).toContain('No longer checking this address: press n for a new one');
    expect(frame).not.toContain('Checking every');
    await h.screen.press('r');
    await h.screen.waitFor('Polling stopped');
    await h.screen.press('n');
    await h.screen.waitFor('Random address on');
    expect(h.tokenNeverShown()).toBe(true);
    await svc.close();
  });

  it('deleting on an address that has expired says so, not "token not valid"', async () => {
    let t = Date.UTC(2026, 10, 21, 12, 0, 0);
    const clock = () => t;
    const svc = await startTestService({ lifetimeSeconds: 120 }, { clock });
    h = await startApp({ svc, props: { clock } });
    const address = await pickFirstDomain(h);
    await sendMail(svc, { to: address, subject: 'Listed before it expired', text: 'hi' });
    await h.screen.press('r');
    await h.screen.waitFor('Listed before it expired');
    t += 180_000;
    await h.screen.press('d', 'y');
    await h.screen.waitFor('Not deleted: this address has expired · press n for a new address');
    expect(h.screen.frame()).toContain('Listed before it expired');
    await h.close();
    h = undefined;
    await svc.close();
  });

  it('learns a misread zone from arriving mail: the countdown, list and viewer times come right', async () => {
    // We are told the service writes -05:00; it writes UTC: every time reads 5 hours late, so a
    // 30-minute address would count down from 5:30:00.
    const svc = await startTestService({ lifetimeSeconds: 30 * 60 });
    h = await startApp({ svc, pollIntervalMs: 300, apiOptions: { serverOffsetMinutes: -300 } });
    const address = await pickFirstDomain(h);
    await h.screen.waitFor(/expires in 5 h (29|30) min/);
    // One badly dated mail is not enough (a service may report a sender's Date): two must agree.
    await sendMail(svc, { to: address, subject: 'First arrival', text: 'one' });
    await h.screen.waitFor('First arrival');
    expect(h.screen.frame()).toMatch(/expires in 5 h (29|30) min/);
    await sendMail(svc, { to: address, subject: 'Second arrival', text: 'two' });
    // The status line follows the list by one render.
    const frame = await h.screen.waitFor("The service's times read +5 h off; corrected from arriving mail");
    expect(frame).toContain('Second arrival');
    expect(frame).toMatch(/expires in (29|30) min/);
    // Both rows (the first was listed before the zone was learned) show the time it is now.
    const hhmm = new Date().toTimeString().slice(0, 5);
    const rows = frame.split('\n').filter((l) => l.includes('arrival'));
    expect(rows).toHaveLength(2);
    const times = rows.map((r) => r.trim().slice(-5));
    const minuteAgo = new Date(Date.now() - 60_000).toTimeString().slice(0, 5);
    for (const t of times) expect([hhmm, minuteAgo]).toContain(t);
    await h.screen.press(KEY.ENTER);
    const viewer = await h.screen.waitFor('Date:');
    const date = /Date: +(\S+ \S+)/.exec(viewer)?.[1] ?? '';
    expect(Math.abs(new Date(date.replace(' ', 'T')).getTime() - Date.now())).toBeLessThan(5 * 60_000);
    await svc.close();
  });

  it('never shows a negative countdown when the service zone is misread', async () => {
    // We are told the service writes +03:00, it writes UTC: its expiry looks 3 hours in the past.
    // Wide enough that a long random address never cuts the header's expiry off.
    h = await startApp({ columns: 140, apiOptions: { serverOffsetMinutes: 180 } });
    await pickFirstDomain(h);
    const frame = await h.screen.waitFor('expiry unclear (service zone? see --server-tz)');
    expect(frame).not.toMatch(/-\d+:\d\d/);
    expect(frame).not.toContain('has expired');
  });
});

describe('hostile mail', () => {
  it('shows the visible words of every fixture and writes none of their control sequences', async () => {
    h = await startApp();
    const address = await pickFirstDomain(h);
    const files = readdirSync(HOSTILE_DIR)
      .filter((f) => f.endsWith('.eml'))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      const raw = readFileSync(join(HOSTILE_DIR, f), 'utf8').replaceAll('{TO}', address);
      await sendRaw(h.svc, address, raw);
    }
    await h.screen.press('r');
    let frame = await h.screen.waitFor(`${files.length} messages`);
    for (const words of [
      'Your code',
      'RED',
      'inside',
      'evil',
      'Bank',
      'Invoice ready',
      'Quoted printable',
      'HTML with script',
      'NUL',
      'DEL',
    ]) {
      expect(frame).toContain(words);
    }
    // Open each one; the list is newest first, all arrived together: walk it top to bottom.
    const bodies: string[] = [];
    for (let i = 0; i < files.length; i += 1) {
      await h.screen.press(KEY.ENTER);
      frame = await h.screen.waitFor(/lines \d+-\d+ of \d+/);
      bodies.push(frame);
      await h.screen.press(KEY.ESC, 'j');
      await h.screen.waitFor('j/k move  Enter open');
    }
    const all = bodies.join('\n');
    for (const words of [
      'Plain body with a CSI clear-screen:',
      'here.',
      'right-to-left override',
      'blinking',
      'a bell',
      'Welcome',
      'Confirm your account',
      'XYZ',
    ]) {
      expect(all).toContain(words);
    }
    expect(all).not.toContain('alert(1)');
    // Every frame the app drew: no escape, no C0 but \n, no DEL, no C1, no bidi control (colours are off).
    for (const f of h.screen.frames) {
      expect(f.includes('\x1b')).toBe(false);
      expect(isTerminalSafe(f)).toBe(true);
    }
    expect(h.tokenNeverShown()).toBe(true);
  });
});
