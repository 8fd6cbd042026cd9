/**
 * Issue 14, point 3: the inbox limit is checked at RCPT TO, so parallel connections used to overrun it
 * (all 12 stored into an inbox of 4). It is now decided where the message is stored: exactly the limit
 * is kept, the others hear 452 4.2.2 at the end of DATA, and none is stored for anyone then, so the
 * sender's retry doubles nothing. Real service on the file store, real SMTP over loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newSession } from '../../harness/http';
import { raceIntoInbox } from '../../harness/inbox-race';
import { sendMail, startTestService, type TestService } from '../../harness/service';

const LIMIT = 4;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({ inboxLimit: LIMIT, createPerMinute: 10_000 });
});
afterAll(() => svc?.close());

async function subjects(token: string): Promise<string[]> {
  const res = await call(svc.baseUrl, '/check-mail', { query: { token } });
  expect(res.status).toBe(200);
  return (res.json!.messages as { subject: string }[]).map((m) => m.subject).sort();
}

describe('the inbox limit under parallel SMTP connections (file store)', () => {
  it('keeps exactly the limit; the rest hear 452 4.2.2 at the end of DATA', async () => {
    const box = await newSession(svc.baseUrl);
    const { replies, subjects: sent } = await raceIntoInbox([svc], [box.email], 12);
    const accepted = sent.filter((_, i) => replies[i]!.startsWith('250 '));
    const full = replies.filter((r) => /^452 4\.2\.2 /.test(r));
    expect(accepted.length, replies.join('\n')).toBe(LIMIT);
    expect(full.length, replies.join('\n')).toBe(12 - LIMIT);
    // What was acknowledged is exactly what is stored.
    expect(await subjects(box.token)).toEqual(accepted.sort());
    expect(svc.logs.filter((l) => l.includes('smtp refused DATA') && l.includes('452 4.2.2'))).toHaveLength(12 - LIMIT);
  });

  it('stores for nobody when one of several recipients filled up; the retry then reaches the others once', async () => {
    const crowded = await newSession(svc.baseUrl);
    const roomy = await newSession(svc.baseUrl);
    for (let i = 0; i < LIMIT - 2; i++) await sendMail(svc, { to: crowded.email, subject: `before ${i}` });
    // Two places left in the crowded inbox; six connections name both: four must store for neither.
    const { replies } = await raceIntoInbox([svc], [crowded.email, roomy.email], 6);
    expect(
      replies.filter((r) => r.startsWith('250 ')),
      replies.join('\n'),
    ).toHaveLength(2);
    expect(replies.filter((r) => /^452 4\.2\.2 /.test(r))).toHaveLength(4);
    expect(await subjects(roomy.token)).toHaveLength(2);
    // A sender's retry: RCPT TO now refuses the full mailbox up front, and the other gets the message once.
    const info = await sendMail(svc, { to: [crowded.email, roomy.email], subject: 'retry' });
    expect(info.rejected).toEqual([crowded.email]);
    expect(info.accepted).toEqual([roomy.email]);
    expect(await subjects(roomy.token)).toHaveLength(3);
    expect((await subjects(roomy.token)).filter((s) => s === 'retry')).toHaveLength(1);
    expect(await subjects(crowded.token)).toHaveLength(LIMIT);
  });
});
