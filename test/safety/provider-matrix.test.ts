/**
 * The terminal safety matrix through the public providers (issue 13): every hostile payload in every
 * field a user sees, served by the mail.tm and Guerrilla Mail conformance fakes over real HTTP (JSON
 * `\u` escapes and raw UTF-8; Guerrilla Mail's HTML-escaped subjects and senders, whose entities are
 * decoded before the boundary), read through the real providers and renderBody. Nothing that comes out
 * may hold a control character, an escape sequence or a bidi control; the marker words must survive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuerrillaProvider } from '../../src/client/guerrilla/guerrilla-provider';
import { createMailtmProvider } from '../../src/client/mailtm/mailtm-provider';
import type { MailProvider } from '../../src/client/client-types';
import { renderBody } from '../../src/content/html-text';
import type { Message, MessageSummary, Session } from '../../src/model/mail-types';
import { startGuerrillaFake, type GuerrillaFake } from '../providers/guerrilla-fake';
import { startMailtmFake, type MailtmFake } from '../providers/mailtm-fake';
import { expectedMarkers, FIELDS, firstUnsafe, hostileValue, PAYLOADS, type Field, type Payload } from './payloads';

let mailtm: MailtmFake;
let guerrilla: GuerrillaFake;
const failures: string[] = [];
const checked = new Map<string, number>();

beforeAll(async () => {
  mailtm = await startMailtmFake();
  guerrilla = await startGuerrillaFake({ pageSize: 20 });
});
afterAll(async () => {
  await mailtm?.close();
  await guerrilla?.close();
});

const SINGLE_LINE: readonly Field[] = ['subject', 'senderName', 'senderEmail', 'attachmentName'];

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object' && !(value instanceof Date))
    for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** What the app would show for `field`. Guerrilla Mail gives one "from" string: name and address are read from it together. */
function observed(provider: string, field: Field, summary: MessageSummary, message: Message): string[] {
  const text = renderBody({ bodyText: message.bodyText, bodyHtml: null }, 80);
  const html = renderBody({ bodyText: null, bodyHtml: message.bodyHtml }, 80);
  const sender = (m: MessageSummary) => `${m.senderName} ${m.senderEmail}`;
  switch (field) {
    case 'subject':
      return [summary.subject, message.subject];
    case 'senderName':
      return provider === 'guerrilla' ? [sender(summary), sender(message)] : [summary.senderName, message.senderName];
    case 'senderEmail':
      return provider === 'guerrilla' ? [sender(summary), sender(message)] : [summary.senderEmail, message.senderEmail];
    case 'textBody':
      return [text.text];
    case 'htmlBody':
    case 'linkText':
      return [html.text];
    case 'linkUrl':
      return [html.links.map((l) => l.url).join('\n')];
    case 'attachmentName':
      return [message.attachments.map((a) => a.filename).join('\n')];
  }
}

function check(
  provider: string,
  payload: Payload,
  fields: readonly Field[],
  summary: MessageSummary,
  message: Message,
): void {
  const where = `${provider} #${payload.id} ${payload.name}`;
  const rendered = [renderBody(message, 80), renderBody({ bodyText: message.bodyText, bodyHtml: null }, 80)];
  for (const s of [...strings(summary), ...strings(message), ...strings(rendered)]) {
    const bad = firstUnsafe(s);
    if (bad) failures.push(`${where}: unsafe character reached the app: ${bad}`);
  }
  for (const field of fields) {
    checked.set(provider, (checked.get(provider) ?? 0) + 1);
    const [a, z] = expectedMarkers(payload, field);
    const wantA = !(payload.long && field === 'linkUrl');
    const wantZ = wantA && !(payload.long && SINGLE_LINE.includes(field));
    for (const v of observed(provider, field, summary, message)) {
      if (wantA && !v.includes(a))
        failures.push(`${where} ${field}: marker ${a} missing in ${JSON.stringify(v.slice(0, 160))}`);
      if (wantZ && !v.includes(z))
        failures.push(`${where} ${field}: marker ${z} missing in ${JSON.stringify(v.slice(0, 160))}`);
    }
  }
}

async function readAll(p: MailProvider, s: Session) {
  const out: { summary: MessageSummary; message: Message }[] = [];
  for (const summary of await p.listMessages(s)) out.push({ summary, message: await p.readMessage(s, summary.id) });
  return out;
}

const v = (payload: Payload, f: Field) => hostileValue(payload, f);
const html = (payload: Payload) =>
  `<p>${v(payload, 'htmlBody')}</p><p><a href="https://example.org/${v(payload, 'linkUrl').replace(/"/g, '&quot;')}">${v(payload, 'linkText')}</a></p>`;

describe('terminal safety matrix through the public providers', () => {
  it('mail.tm: every payload in every field, through the mailtm provider', async () => {
    const mt = createMailtmProvider({ baseUrl: mailtm.baseUrl, retries: 0, requestsPerSecond: 0 });
    const session = await mt.createSession();
    const byCase = new Map<string, Payload>();
    for (const payload of PAYLOADS) {
      const id = mailtm.deliver(session.email, {
        from: { name: v(payload, 'senderName'), address: `${v(payload, 'senderEmail')}@example.org` },
        subject: v(payload, 'subject'),
        text: `Text part.\n${v(payload, 'textBody')}\nEnd.`,
        html: html(payload),
        cc: [`${v(payload, 'subject')}@example.org`],
        attachments: [{ filename: v(payload, 'attachmentName'), contentType: 'text/plain', content: Buffer.from('x') }],
      });
      byCase.set(id, payload);
    }
    // Not vacuous: the wire carries the controls (JSON escapes for C0, raw UTF-8 for C1 and bidi).
    const page = async (n: number) =>
      (
        await fetch(`${mailtm.baseUrl}messages?page=${n}`, { headers: { authorization: `Bearer ${session.token}` } })
      ).text();
    const wire = (await page(1)) + (await page(2));
    expect(wire).toContain('\\u001b');
    expect(wire).toContain('\u009b');
    expect(wire).toContain('\u202e');
    const read = await readAll(mt, session);
    expect(read).toHaveLength(PAYLOADS.length);
    for (const r of read) check('mailtm', byCase.get(r.summary.id)!, FIELDS, r.summary, r.message);
    const mine = failures.filter((f) => f.startsWith('mailtm '));
    expect(mine, mine.slice(0, 20).join('\n')).toEqual([]);
  }, 60_000);

  it('Guerrilla Mail: every payload in every field, escaped as it serves them, through the guerrilla provider', async () => {
    const gm = createGuerrillaProvider({ baseUrl: guerrilla.baseUrl, retries: 0 });
    const session = await gm.createSession({ prefix: 'matrix' });
    const byCase = new Map<string, { payload: Payload; fields: Field[] }>();
    for (const payload of PAYLOADS) {
      const from = `${v(payload, 'senderName')} <${v(payload, 'senderEmail')}@example.org>`;
      // The HTML one: the header fields, the HTML body, its link and an attachment.
      const a = guerrilla.deliver(session.email, {
        from,
        subject: v(payload, 'subject'),
        body: html(payload),
        attachments: [{ filename: v(payload, 'attachmentName'), contentType: 'text/plain', content: Buffer.from('x') }],
      });
      byCase.set(String(a), {
        payload,
        fields: ['subject', 'senderName', 'senderEmail', 'htmlBody', 'linkText', 'linkUrl', 'attachmentName'],
      });
      // The plain one: the text body.
      const b = guerrilla.deliver(session.email, {
        from,
        subject: v(payload, 'subject'),
        body: `Text part.\n${v(payload, 'textBody')}\nEnd.`,
        contentType: 'text/plain',
      });
      byCase.set(String(b), { payload, fields: ['textBody'] });
    }
    const wire = await (
      await fetch(`${guerrilla.baseUrl}ajax.php?f=get_email_list&offset=0&sid_token=${session.token}`)
    ).text();
    expect(wire).toContain('\\u001b');
    expect(wire).toContain('&lt;');
    const read = await readAll(gm, session);
    expect(read).toHaveLength(PAYLOADS.length * 2);
    for (const r of read) {
      const c = byCase.get(r.summary.id)!;
      check('guerrilla', c.payload, c.fields, r.summary, r.message);
    }
    const mine = failures.filter((f) => f.startsWith('guerrilla '));
    expect(mine, mine.slice(0, 20).join('\n')).toEqual([]);
  }, 60_000);

  it('reports the size of the matrix', () => {
    const total = [...checked.values()].reduce((a, b) => a + b, 0);
    console.log(
      `provider safety matrix: ${PAYLOADS.length} payloads, ${[...checked].map(([p, n]) => `${p} ${n}`).join(', ')}: ${total} payload x field cases, ${failures.length} failures`,
    );
    expect(checked.get('mailtm')).toBe(PAYLOADS.length * FIELDS.length);
    expect(checked.get('guerrilla')).toBe(PAYLOADS.length * FIELDS.length);
    expect(failures).toEqual([]);
  });
});
