/** The few service calls the bench makes itself: a new address over HTTP, one message over SMTP. */
import type { SeededInbox } from '../seed/seed-store';
import { dataPayload, SmtpConnection } from './smtp-client';
import { notification } from '../seed/mail-samples';

/** A new session on the service at `baseUrl` (POST /create-session, form-encoded as the app sends it). */
export async function createInbox(baseUrl: string): Promise<SeededInbox> {
  const res = await fetch(new URL('create-session', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  const body = (await res.json()) as { status?: string; email?: string; token?: string; expires_at?: string };
  if (res.status !== 200 || !body.email || !body.token || !body.expires_at) {
    throw new Error(`create-session answered ${res.status} ${body.status ?? ''}`);
  }
  // The wire time is UTC "YYYY-MM-DD HH:MM:SS".
  return {
    email: body.email,
    token: body.token,
    expiresAt: new Date(`${body.expires_at.replace(' ', 'T')}Z`).toISOString(),
    messages: 0,
  };
}

/** Sends one ~3 KB notification with `subject` over SMTP; resolves when the 250 arrived. */
export async function sendOne(host: string, port: number, to: string, subject: string): Promise<void> {
  const smtp = await SmtpConnection.open(host, port);
  try {
    await smtp.send('sender@example.org', to, dataPayload(notification(to, subject)));
  } finally {
    await smtp.close();
  }
}
