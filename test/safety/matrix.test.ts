/**
 * Terminal safety matrix, fast level (issue 5): every payload x every field a user sees x every decoding
 * path, through the real reference service (real SMTP in, real HTTP out) or a JSON-escaping fixture
 * service, then through the real client and renderBody, the functions the app draws from. Nothing that
 * comes out may hold a control character, an escape sequence or a bidi control; the marker words around
 * each payload must survive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import type { TempMailApi } from '../../src/client/client-types';
import { renderBody } from '../../src/content/html-text';
import type { Message, MessageSummary } from '../../src/model/mail-types';
import { startTestService, type TestService } from '../harness/service';
import { startSpecService, type SpecService } from '../faults/spec-service';
import { buildEml, fieldsFor, MIME_PATHS, type DecodePath, type MimePath } from './eml';
import {
  expectedMarkers,
  FIELDS,
  firstUnsafe,
  hostileValue,
  markers,
  PAYLOADS,
  type Field,
  type Payload,
} from './payloads';
import { sendRawBatch } from './send';

let svc: TestService;
let spec: SpecService;
const failures: string[] = [];
const checked = new Map<DecodePath, number>();
let messagesSent = 0;

beforeAll(async () => {
  // Thousands of messages and requests from one client: the per-client limits are not what this tests.
  svc = await startTestService({
    createPerMinute: 100_000,
    inboxLimit: 1000,
    smtpMessagesPerMinute: 100_000,
    smtpRecipientsPerMinute: 100_000,
    httpRequestsPerMinute: 100_000,
  });
  spec = await startSpecService({ escapeJson: true });
});
afterAll(async () => {
  await svc?.close();
  await spec?.close();
});

const SINGLE_LINE: readonly Field[] = ['subject', 'senderName', 'senderEmail', 'attachmentName'];

/** What the app would show for `field`: the client's value, or renderBody's text and links. */
function observed(field: Field, summary: MessageSummary, message: Message): string[] {
  const text = renderBody({ bodyText: message.bodyText, bodyHtml: null }, 80);
  const html = renderBody({ bodyText: null, bodyHtml: message.bodyHtml }, 80);
  switch (field) {
    case 'subject':
      return [summary.subject, message.subject];
    case 'senderName':
      return [summary.senderName, message.senderName];
    case 'senderEmail':
      return [summary.senderEmail, message.senderEmail];
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

/** Every string anywhere in `value` (the whole Message: headers, addresses, content types too). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object' && !(value instanceof Date))
    for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** Checks one message of one payload on one path; failures are collected, not thrown, for a full picture. */
function check(path: DecodePath, payload: Payload, fields: Field[], summary: MessageSummary, message: Message): void {
  const where = `${path} #${payload.id} ${payload.name}`;
  const rendered = [renderBody(message, 80), renderBody({ bodyText: message.bodyText, bodyHtml: null }, 80)];
  for (const s of [...strings(summary), ...strings(message), ...strings(rendered)]) {
    const bad = firstUnsafe(s);
    if (bad) failures.push(`${where}: unsafe character reached the app: ${bad}`);
  }
  for (const field of fields) {
    checked.set(path, (checked.get(path) ?? 0) + 1);
    const [a, z] = expectedMarkers(payload, field);
    const values = observed(field, summary, message);
    // Long payloads: one-line fields are cut to their limit, and URLs past 8 KB are dropped by design.
    const wantA = !(payload.long && field === 'linkUrl');
    const wantZ = wantA && !(payload.long && SINGLE_LINE.includes(field));
    for (const v of values) {
      if (wantA && !v.includes(a))
        failures.push(`${where} ${field}: marker ${a} missing in ${JSON.stringify(v.slice(0, 160))}`);
      if (wantZ && !v.includes(z))
        failures.push(`${where} ${field}: marker ${z} missing in ${JSON.stringify(v.slice(0, 160))}`);
    }
  }
}

async function readAll(api: TempMailApi, token: string): Promise<{ summary: MessageSummary; message: Message }[]> {
  const list = await api.checkMail(token);
  const out = [];
  for (const summary of list) out.push({ summary, message: await api.readMail(token, summary.id) });
  return out;
}

describe('terminal safety matrix: payload x field x decoding path, through the client and renderBody', () => {
  it(`has at least 40 payloads covering every family, each with unique markers`, () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(40);
    const families = new Set(PAYLOADS.map((p) => p.family));
    expect(families.size).toBe(18);
    const words = PAYLOADS.flatMap((p) => FIELDS.flatMap((f) => markers(p, f)));
    expect(new Set(words).size).toBe(words.length);
  });

  it.each(MIME_PATHS)(
    'MIME path %s: real SMTP in, real HTTP and client out',
    async (path: MimePath) => {
      const api = createApi({ baseUrl: svc.baseUrl, retries: 0 });
      const session = await api.createSession();
      const cases = PAYLOADS.map((payload) => ({ payload, caseId: `${path}-${payload.id}` }));
      const built = cases.map((c) => ({ ...c, ...buildEml(path, c.payload, session.email, c.caseId) }));
      await sendRawBatch(
        { smtpHost: svc.smtpHost, smtpPort: svc.smtpPort },
        session.email,
        built.map((b) => b.raw),
      );
      messagesSent += built.length;
      const read = await readAll(api, session.token);
      expect(read.length).toBe(built.length);
      for (const b of built) {
        const found = read.find((r) => r.message.headers?.['Message-ID'] === `<${b.caseId}@safety.test>`);
        if (!found) {
          failures.push(`${b.caseId}: message not found`);
          continue;
        }
        check(path, b.payload, b.fields, found.summary, found.message);
      }
      // Not vacuous: the service hands the decoded control sequence on (entities stay entities until
      // renderBody decodes them), so it is the client and renderBody that made it safe.
      const first = read.find((r) => r.message.headers?.['Message-ID'] === `<${path}-01@safety.test>`)!;
      const wire = await (await fetch(`${svc.baseUrl}read-mail?token=${session.token}&id=${first.summary.id}`)).text();
      expect(wire).toContain(
        path.startsWith('ent')
          ? path === 'entHex'
            ? '&#x1b;'
            : path === 'entDec'
              ? '&#27;'
              : '\\u001b&lsqb;'
          : '\\u001b[31m',
      );
      const mine = failures.filter((f) => f.startsWith(`${path} `) || f.startsWith(`${path}-`));
      expect(mine, mine.slice(0, 20).join('\n')).toEqual([]);
    },
    120_000,
  );

  it('JSON path: a service whose JSON carries \\u001b, \\u009b, \\u202e ... escapes', async () => {
    const session = spec.session();
    for (const payload of PAYLOADS) {
      const v = (f: Field) => hostileValue(payload, f);
      spec.add(session.token, {
        subject: v('subject'),
        sender_name: v('senderName'),
        sender_email: `${v('senderEmail')}@example.org`,
        body_text: `Text part.\n${v('textBody')}\nEnd.`,
        body_html: `<p>${v('htmlBody')}</p><p><a href="https://example.org/${v('linkUrl').replace(/"/g, '&quot;')}">${v('linkText')}</a></p>`,
        attachments: [
          { id: 1, filename: v('attachmentName'), content_type: `text/plain${payload.seq.slice(0, 20)}`, size: 17 },
        ],
        to: [`${v('subject')}@example.org`],
        headers: { 'X-Case': payload.id, Subject: v('subject') },
      });
    }
    // The wire really carries the escapes, not the raw bytes.
    const wire = await (await fetch(`${spec.baseUrl}check-mail?token=${session.token}`)).text();
    expect(wire).toContain('\\u001b');
    expect(wire).toContain('\\u009b');
    expect(wire).toContain('\\u202e');
    expect(wire).not.toMatch(/[\x00-\x1f\x7f-\uffff]/);
    const api = createApi({ baseUrl: spec.baseUrl, retries: 0 });
    const read = await readAll(api, session.token);
    expect(read.length).toBe(PAYLOADS.length);
    for (const r of read) {
      const payload = PAYLOADS.find((p) => p.id === r.message.headers?.['X-Case'])!;
      check('json', payload, fieldsFor('json', payload), r.summary, r.message);
    }
    const mine = failures.filter((f) => f.startsWith('json '));
    expect(mine, mine.slice(0, 20).join('\n')).toEqual([]);
  }, 60_000);

  it('reports the size of the matrix', () => {
    const total = [...checked.values()].reduce((a, b) => a + b, 0);
    const perPath = [...checked].map(([p, n]) => `${p} ${n}`).join(', ');
    console.log(
      `safety matrix: ${PAYLOADS.length} payloads, ${checked.size} decoding paths, ${messagesSent} messages over SMTP, ` +
        `${total} payload x field x path cases (${perPath}), ${failures.length} failures`,
    );
    expect(checked.size).toBe(MIME_PATHS.length + 1);
    expect(failures).toEqual([]);
  });
});
