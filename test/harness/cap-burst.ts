/**
 * The storage cap's burst (issue 36): five sessions, ten SMTP connections that each reach DATA with all
 * five as recipients before any sends its body, then ten bodies of 50 KB at once. Says how many
 * transactions were stored (250; every other reply must be 452 4.3.1) and how many messages the inboxes
 * list. With `others` (instances on the same database), the connections go to each in turn.
 */
import { expect } from 'vitest';
import { call, newSession } from './http';
import type { SmtpTarget } from './service';
import { openSmtp, type SmtpDialog } from './smtp-dialog';
import { waitFor } from './wait';

type Instance = SmtpTarget & { baseUrl: string; ops: { stats(): { storage: { messages?: number } } } };

export async function capBurst(svc: Instance, others: Instance[] = []): Promise<{ stored: number; listed: number }> {
  const boxes: { email: string; token: string }[] = [];
  for (let i = 0; i < 5; i++) boxes.push(await newSession(svc.baseUrl));
  const all = [svc, ...others];
  for (const one of all) await waitFor(() => one.ops.stats().storage.messages === 0, { message: 'the first measure' });
  const dialogs: SmtpDialog[] = [];
  try {
    for (let i = 0; i < 10; i++) dialogs.push(await openSmtp(all[i % all.length]!));
    for (const smtp of dialogs) {
      await smtp.command('EHLO burst.test');
      expect(await smtp.command('MAIL FROM:<a@example.org>')).toMatch(/^250/);
      for (const box of boxes) expect(await smtp.command(`RCPT TO:<${box.email}>`)).toMatch(/^250/);
      expect(await smtp.command('DATA')).toMatch(/^354/);
    }
    const body = `Subject: burst\r\n\r\n${'z'.repeat(50_000)}\r\n.\r\n`;
    const replies = await Promise.all(
      dialogs.map((smtp) => {
        smtp.write(body);
        return smtp.reply();
      }),
    );
    expect(replies.filter((r) => !r.startsWith('250 ')).every((r) => r.startsWith('452 4.3.1 '))).toBe(true);
    let listed = 0;
    for (const box of boxes)
      listed += (await call(svc.baseUrl, '/check-mail', { query: { token: box.token } })).json!.messages.length;
    return { stored: replies.filter((r) => r.startsWith('250 ')).length, listed };
  } finally {
    for (const smtp of dialogs) smtp.destroy();
  }
}
