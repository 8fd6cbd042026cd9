/**
 * The service stores data and serves it back byte-faithfully; making it terminal-safe is the client's job
 * (docs/architecture.md, "Terminal-safe at one boundary"). Each hostile fixture goes in over real SMTP,
 * and the raw JSON of /check-mail and /read-mail, read with plain fetch and not through the sanitising
 * client, still carries its control characters exactly as mailparser decodes them: the ESC of a CSI,
 * U+202E, BEL, NUL, DEL, BS.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_DIR } from '../../harness/fixtures';
import { call, newSession, type JsonBody } from '../../harness/http';
import { sendRaw, startTestService, type TestService } from '../../harness/service';
import { waitFor } from '../../harness/wait';

/** Per fixture: control characters that must come back in a field (JSON can carry every one of them). */
const CONTROLS: Record<string, { field: 'subject' | 'sender_name' | 'body_text'; has: string[] }[]> = {
  '01-raw-csi-subject.eml': [
    { field: 'subject', has: ['\u001b[2J', '\u001b[31m', '\u001b[0m'] },
    { field: 'body_text', has: ['\u001b[2J', '\u001b[10;10H'] },
  ],
  '02-bidi-sender.eml': [{ field: 'sender_name', has: ['\u202e', '\u202c'] }],
  '03-qp-escape.eml': [{ field: 'body_text', has: ['\u001b[5m', '\u001b[0m', '\u0007'] }],
  '04-html-script.eml': [],
  '05-nul-and-del.eml': [
    { field: 'subject', has: ['\u0000', '\u007f'] },
    { field: 'body_text', has: ['\u0000', '\u007f', '\b\b\b'] },
  ],
};

interface Sent {
  file: string;
  parsed: ParsedMail;
  id: number;
}

let svc: TestService;
let token: string;
const sent: Sent[] = [];

beforeAll(async () => {
  svc = await startTestService();
  const s = await newSession(svc.baseUrl);
  token = s.token;
  const files = readdirSync(HOSTILE_DIR)
    .filter((f) => f.endsWith('.eml'))
    .sort();
  // Every known sample is there: an empty or renamed fixture dir must fail here, not pass vacuously.
  expect(files).toEqual(Object.keys(CONTROLS));
  for (const file of files) {
    // latin1 both ways: the fixture's bytes go out exactly as they are on disk.
    const raw = Buffer.from(readFileSync(join(HOSTILE_DIR, file), 'latin1').replaceAll('{TO}', s.email), 'latin1');
    await sendRaw(svc, s.email, raw);
    const known = new Set(sent.map((x) => x.id));
    const added = await waitFor(
      async () => {
        const res = await call(svc.baseUrl, '/check-mail', { query: { token } });
        return (res.json?.messages as { id: number }[] | undefined)?.find((m) => !known.has(m.id));
      },
      { message: `${file} listed` },
    );
    // What mailparser makes of the same bytes, with the options that decide text and HTML as the service has them.
    const parsed = await simpleParser(raw, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      skipTextLinks: true,
      keepCidLinks: true,
    });
    sent.push({ file, parsed, id: added.id });
  }
});
afterAll(() => svc?.close());

function expectedOf(p: ParsedMail) {
  const from = p.from?.value[0];
  const html = typeof p.html === 'string' ? p.html : null;
  return {
    subject: p.subject ?? '',
    sender_name: from?.name ?? '',
    sender_email: from?.address ?? '',
    // An HTML-only message has no text part: null, not "".
    body_text: typeof p.text === 'string' && !(p.text === '' && html !== null) ? p.text : null,
    body_html: html,
  };
}

/** The answer's JSON as text and parsed: the text is what went over the wire, escapes and all. */
async function rawJson(path: string, query: Record<string, string | number>) {
  const res = await call(svc.baseUrl, path, { query });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const text = res.bytes.toString('utf8');
  return { text, bytes: res.bytes, json: JSON.parse(text) as JsonBody };
}

describe('hostile fixtures over SMTP, served back as JSON', () => {
  it('the control characters are in the fixtures as mailparser decodes them (the test is not vacuous)', () => {
    for (const { file, parsed } of sent) {
      const fields = expectedOf(parsed);
      for (const { field, has } of CONTROLS[file]!) {
        for (const c of has) expect(fields[field], `${file} ${field} ${JSON.stringify(c)}`).toContain(c);
      }
    }
  });

  it('/check-mail lists subject, sender name and sender address exactly as mailparser decoded them', async () => {
    const { json } = await rawJson('/check-mail', { token });
    const listed = json.messages as Record<string, unknown>[];
    expect(listed).toHaveLength(sent.length);
    for (const { file, parsed, id } of sent) {
      const m = listed.find((x) => x.id === id);
      const want = expectedOf(parsed);
      expect(m, file).toMatchObject({
        subject: want.subject,
        sender_name: want.sender_name,
        sender_email: want.sender_email,
      });
    }
  });

  it('/read-mail serves subject, sender, text and HTML exactly as mailparser decoded them', async () => {
    for (const { file, parsed, id } of sent) {
      const { json } = await rawJson('/read-mail', { token, id });
      const want = expectedOf(parsed);
      const m = json.message as Record<string, unknown>;
      for (const key of Object.keys(want) as (keyof typeof want)[])
        expect(m[key], `${file} ${key}`).toStrictEqual(want[key]);
      expect((m.headers as Record<string, string>).Subject, file).toBe(want.subject);
    }
  });

  it('the wire carries each control: ESC, BEL, NUL and BS as \\u escapes, DEL and U+202E as their own bytes', async () => {
    const wire = new Map<string, { check: string; read: string; readBytes: Buffer }>();
    const list = (await rawJson('/check-mail', { token })).text;
    for (const { file, id } of sent) {
      const read = await rawJson('/read-mail', { token, id });
      wire.set(file, { check: list, read: read.text, readBytes: read.bytes });
    }
    const csi = wire.get('01-raw-csi-subject.eml')!;
    for (const text of [csi.check, csi.read])
      expect(text).toContain('Your code \\u001b[2J\\u001b[31mRED\\u001b[0m inside');
    expect(csi.read).toContain('\\u001b[10;10H');

    const bidi = wire.get('02-bidi-sender.eml')!;
    for (const text of [bidi.check, bidi.read]) expect(text).toContain('"\u202eevil\u202c Bank"');
    expect(bidi.readBytes.includes(Buffer.from([0xe2, 0x80, 0xae]))).toBe(true);

    expect(wire.get('03-qp-escape.eml')!.read).toContain('\\u001b[5m blinking \\u001b[0m and a bell \\u0007 here.');

    const nul = wire.get('05-nul-and-del.eml')!;
    for (const text of [nul.check, nul.read]) expect(text).toContain('NUL\\u0000 and DEL\u007f in subject');
    expect(nul.read).toContain('\\u0000 DEL \u007f and backspaces abc\\b\\b\\bXYZ.');
    expect(nul.readBytes.includes(0x7f)).toBe(true);
  });
});
