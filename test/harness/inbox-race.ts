/**
 * The inbox-limit race over real SMTP: many connections each get past RCPT TO while the inbox still has
 * room, then all of them send DATA at once. Whatever the RCPT check said, the service must store no
 * more than the limit and answer 452 4.2.2 for the rest. The connections may be spread over several
 * services (two `serve` instances on one database).
 */
import type { SmtpTarget } from './service';
import { openSmtp, type SmtpDialog } from './smtp-dialog';

export interface RaceResult {
  /** The reply to each connection's end of DATA, in connection order. */
  replies: string[];
  /** The subject each connection sent (`race <i>`), in connection order. */
  subjects: string[];
}

/** Readies `count` transactions to `to` (through `targets` in turn), then ends all their DATA at once. */
export async function raceIntoInbox(
  targets: readonly SmtpTarget[],
  to: readonly string[],
  count: number,
): Promise<RaceResult> {
  const dialogs: SmtpDialog[] = [];
  try {
    for (let i = 0; i < count; i++) dialogs.push(await openSmtp(targets[i % targets.length]!));
    const subjects = dialogs.map((_, i) => `race ${i}`);
    await Promise.all(
      dialogs.map(async (d) => {
        expectReply(await d.command('EHLO race.example'), 250);
        expectReply(await d.command('MAIL FROM:<racer@example.org>'), 250);
        for (const address of to) expectReply(await d.command(`RCPT TO:<${address}>`), 250);
        expectReply(await d.command('DATA'), 354);
      }),
    );
    // Every connection is past RCPT with the inbox not yet full; now all of them finish at once.
    const replies = await Promise.all(
      dialogs.map((d, i) => {
        d.write(`From: racer@example.org\r\nTo: ${to.join(', ')}\r\nSubject: ${subjects[i]}\r\n\r\nbody ${i}\r\n.\r\n`);
        return d.reply();
      }),
    );
    await Promise.all(dialogs.map((d) => d.command('QUIT').catch(() => undefined)));
    return { replies, subjects };
  } finally {
    for (const d of dialogs) d.destroy();
  }
}

function expectReply(reply: string, code: number): void {
  if (!reply.startsWith(`${code}`)) throw new Error(`expected ${code}, got: ${reply}`);
}
