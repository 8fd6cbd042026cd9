/**
 * The storage cap holds for mail fetched over IMAP too (a throwaway Dovecot on loopback): while the cap is
 * reached, a message for a live alias stays in its external account, and it is fetched once there is room.
 * Before, SMTP heard 452 4.3.1 but IMAP intake stored whatever came, and anyone can mail an external
 * account: the disk filled past the cap.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAfterEach } from '../../harness/cleanup';
import { startDovecot, type Dovecot, type DovecotUser } from '../../harness/dovecot/dovecot';
import { accountOn, appendMail, listMailbox, message } from '../../harness/dovecot/mailbox';
import { call, newSession } from '../../harness/http';
import { sendMail, startTestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

const cleanup = cleanupAfterEach();
const user: DovecotUser = { name: 'capped', password: 'pw-capped-S3cret!' };
let dovecot: Dovecot;

beforeAll(async () => {
  dovecot = await startDovecot({ users: [user] });
});
afterAll(async () => {
  await dovecot?.remove();
});

const inbox = async (baseUrl: string, token: string) =>
  (await call(baseUrl, '/check-mail', { query: { token } })).json!.messages as { id: number; subject: string }[];

describe('the storage cap and IMAP intake', () => {
  it('leaves fetched mail in its account while the cap is reached, and fetches it once there is room', async () => {
    const account = await accountOn(cleanup, dovecot, user, { folders: ['INBOX'] });
    const svc = cleanup.defer(
      await startTestService({
        domains: ['tempmail.test'],
        extmailAccounts: [account],
        maxStoredMessages: 1,
        storageUsageIntervalMs: 500,
      }),
      (s) => s.close(),
    );
    await waitFor(() => svc.logs.some((l) => l.includes('imap capped@ext.test: active')), {
      timeoutMs: 15_000,
      message: 'the account to be active',
    });
    const alias = (
      await call(svc.baseUrl, 'create-session', { form: { use_extmail: 1, extmail_id: 1, prefix: 'cap' } })
    ).json as { email: string; token: string };
    const box = await newSession(svc.baseUrl);
    await waitFor(() => svc.ops.stats().storage.messages === 0, { message: 'the first measure' });
    await sendMail(svc, { to: box.email, subject: 'fills the cap' });
    expect(svc.ops.stats().storage.full).toBe(true);

    await appendMail(dovecot, user, message({ To: alias.email, Subject: 'fetched later' }));
    await waitFor(() => svc.logs.some((l) => l.includes('storing fetched mail failed: the storage cap is reached')), {
      timeoutMs: 15_000,
      message: 'the fetcher to leave the message for later',
    });
    expect(await inbox(svc.baseUrl, alias.token)).toEqual([]);
    expect(await listMailbox(dovecot, user)).toHaveLength(1);

    // Room again: the delete shows at the next measure, and the fetcher's next try stores the message.
    const [first] = await inbox(svc.baseUrl, box.token);
    expect((await call(svc.baseUrl, '/delete-mail', { form: { token: box.token, id: first!.id } })).status).toBe(200);
    const got = await waitFor(
      async () => {
        const list = await inbox(svc.baseUrl, alias.token);
        return list.length === 1 ? list : undefined;
      },
      { timeoutMs: 15_000, message: 'the fetched message once there is room' },
    );
    expect(got[0]!.subject).toBe('fetched later');
  });
});
