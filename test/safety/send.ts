/**
 * Sends raw messages over real SMTP byte for byte. nodemailer turns a bare CR into CRLF (sensible for
 * a sender, but it would hide the "CR overwrite" payload of a raw 8-bit body), so this speaks SMTP
 * itself through the test dialog helper, doing only the dot-stuffing the protocol requires.
 */
import { openSmtp } from '../harness/smtp-dialog';
import type { SmtpTarget } from '../harness/service';

/** Dot-stuffs `raw` and ends it with CRLF . CRLF (RFC 5321 4.5.2). */
export function dataBlock(raw: Buffer): Buffer {
  const out: number[] = [];
  let lineStart = true;
  for (const b of raw) {
    if (lineStart && b === 0x2e) out.push(0x2e);
    out.push(b);
    lineStart = b === 0x0a;
  }
  const ending = raw.length > 1 && raw[raw.length - 2] === 0x0d && raw[raw.length - 1] === 0x0a ? '.\r\n' : '\r\n.\r\n';
  return Buffer.concat([Buffer.from(out), Buffer.from(ending)]);
}

/** Sends every message to `to` over one connection; rejects on the first refusal, with the reply. */
export async function sendRawBatch(
  target: SmtpTarget,
  to: string,
  messages: Buffer[],
  from = 'sender@example.org',
): Promise<void> {
  const c = await openSmtp(target, 30_000);
  try {
    const expect = async (reply: Promise<string>, code: string, what: string) => {
      const r = await reply;
      if (!r.startsWith(code)) throw new Error(`SMTP ${what}: ${r}`);
    };
    await expect(c.command('EHLO safety.test'), '250', 'EHLO');
    for (const [i, raw] of messages.entries()) {
      await expect(c.command(`MAIL FROM:<${from}>`), '250', `MAIL (message ${i})`);
      await expect(c.command(`RCPT TO:<${to}>`), '250', `RCPT (message ${i})`);
      await expect(c.command('DATA'), '354', `DATA (message ${i})`);
      c.write(dataBlock(raw));
      await expect(c.reply(), '250', `end of DATA (message ${i})`);
    }
    await c.command('QUIT').catch(() => undefined);
  } finally {
    c.destroy();
  }
}
