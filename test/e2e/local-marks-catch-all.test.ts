/**
 * Issue 37.5 and 37.9 on the built program in a real pseudo-terminal, in local mode: forty sign-up mails
 * alike but for their code all show their `[code …]` once the list rests (not only the newest few), and
 * mail to a name nobody made at the local domain makes its inbox, which the app says `s` lists.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendMail } from '../harness/service';
import { isInbox, neutralEnv, pickFirstDomain } from './flow';
import { spawnApp, type PtyApp } from './pty-harness';

let app: PtyApp | undefined;
let home: string | undefined;
afterEach(async () => {
  app?.kill();
  app = undefined;
  if (home) await rm(home, { recursive: true, force: true });
  home = undefined;
});

const SMTP_TARGET = /via SMTP (127\.0\.0\.1):(\d+)/;
const SUBJECT = 'Finish signing up';

describe('local mode, built', () => {
  it('every row on screen shows its code; mail to a new name makes its inbox', async () => {
    home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-marks-'));
    const env = { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, DISPLAY: undefined, WAYLAND_DISPLAY: undefined };
    app = await spawnApp({ args: ['--poll-interval', '3600'], env, cols: 100, rows: 30 });
    const address = await pickFirstDomain(app);
    const target = SMTP_TARGET.exec(app.screenText())!;
    const smtp = { smtpHost: target[1]!, smtpPort: Number(target[2]) };
    for (let i = 0; i < 40; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          sendMail(smtp, { to: address, subject: SUBJECT, text: `your code is ${100001 + i + k}` }),
        ),
      );
    }
    const screen = await app.waitForScreen((s) => {
      const rows = s.split('\n').filter((line) => line.includes(SUBJECT));
      return isInbox(s) && rows.length >= 15 && rows.every((row) => /\[code 1000\d\d\]/.test(row));
    }, 30_000);
    expect(screen).toContain('40 messages');

    const other = `app-under-test@${address.slice(address.indexOf('@') + 1)}`;
    await sendMail(smtp, { to: other, subject: 'Hello app', text: 'hi' });
    await app.waitForScreen((s) => s.includes(`Mail came for ${other}`));
  }, 90_000);
});
