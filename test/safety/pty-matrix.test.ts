/**
 * Terminal safety matrix, pseudo-terminal level (issue 5): the built app, in a real pty, against a
 * `serve` child that received every payload (batched, every family in every field, rotating decoding
 * paths). Each message is opened and paged through. Then the raw bytes the app wrote are checked: no
 * payload sequence, no OSC/DCS/APC/PM/SOS introducer at all, no C1, no bidi control, no stray C0, and
 * between the two markers of a payload nothing but text; and the screen shows the marker words. Last,
 * the copy key: the app's own OSC 52 is the one OSC it may write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInbox, isViewer, pickFirstDomain, startE2E, type E2E } from '../e2e/flow';
import { KEYS } from '../e2e/pty-harness';
import { firstUnsafe, PAYLOADS, type Payload } from './payloads';
import { batchMessages, type PtyMessage } from './pty-messages';
import { sendRawBatch } from './send';

const COLS = 260;
const ROWS = 60;
const BATCH = 8;

let e2e: E2E;
let address: string;
let messages: PtyMessage[];
/** Everything the viewer showed per message, all pages joined. */
const seen = new Map<string, string>();

beforeAll(async () => {
  // --no-bell: a BEL in the output can then only be a leak.
  e2e = await startE2E({ cols: COLS, rows: ROWS, args: ['--no-bell', '--poll-interval', '1'] });
  address = await pickFirstDomain(e2e.app);
  const normal = PAYLOADS.filter((p) => !p.long);
  const batches: Payload[][] = [];
  for (let i = 0; i < normal.length; i += BATCH) batches.push(normal.slice(i, i + BATCH));
  messages = [
    ...batches.flatMap((b, i) => batchMessages(b, i, address)),
    ...PAYLOADS.filter((p) => p.long).flatMap((p, i) => batchMessages([p], i, address, 'L')),
  ];
  await sendRawBatch(e2e.serve, address, messages.map((m) => m.raw));
}, 60_000);
afterAll(() => e2e?.close());

const position = (screen: string) => /lines (\d+)-(\d+) of (\d+)/.exec(screen);

/** Opens the selected message, pages to its end, and returns every screen seen on the way. */
async function readSelected(): Promise<string> {
  const { app } = e2e;
  // A frame can reach the terminal in several writes: once the expected line shows, let it finish.
  const whole = async () => (await app.settle(), app.screenText());
  await app.press(KEYS.ENTER, (s) => isViewer(s) && position(s) !== null);
  let screen = await whole();
  const pages = [screen];
  for (let guard = 0; guard < 50; guard++) {
    const pos = position(screen)!;
    if (pos[2] === pos[3]) break;
    const before = pos[0];
    await app.press(' ', (s) => position(s) !== null && position(s)![0] !== before);
    screen = await whole();
    pages.push(screen);
  }
  await app.press(KEYS.ESC, isInbox);
  return pages.join('\n');
}

describe('terminal safety in a real pty: the built app against a serve child', () => {
  it('shows every hostile message with its marker words and no bidi control on screen', async () => {
    const { app } = e2e;
    await app.waitForScreen((s) => isInbox(s) && new RegExp(`\\b${messages.length} messages\\b`).test(s), 30_000);
    await app.press('g');
    for (let i = 0; i < messages.length; i++) {
      if (i > 0) await app.press('j');
      const text = await readSelected();
      const tag = /^Subject: +(\S+)/m.exec(text)?.[1];
      const message = messages.find((m) => m.tag === tag);
      expect(message, `message with subject tag ${tag}:\n${text.slice(0, 2000)}`).toBeDefined();
      seen.set(message!.tag, text);
    }
    expect(seen.size).toBe(messages.length);
    const missing: string[] = [];
    for (const m of messages) {
      const text = seen.get(m.tag)!;
      const bad = firstUnsafe(text);
      if (bad) missing.push(`${m.tag}: unsafe character on screen: ${bad}`);
      for (const e of m.expect) {
        for (const word of e.words) if (!text.includes(word)) missing.push(`${m.tag} #${e.payload.id} ${e.payload.name} ${e.field}: ${word} not on screen`);
      }
    }
    expect(missing, missing.slice(0, 30).join('\n')).toEqual([]);
    const families = new Set(messages.flatMap((m) => m.expect.map((e) => `${e.payload.family}/${e.field}`)));
    console.log(`pty safety: ${messages.length} messages, ${PAYLOADS.length} payloads, ${families.size} family x field pairs, all marker words on screen`);
  }, 240_000);

  it('wrote none of the payload sequences: no string-sequence introducer, C1, bidi, stray C0 or DEL', () => {
    const raw = e2e.app.raw();
    const text = raw.toString('utf8');
    // Valid UTF-8 throughout: no lone 8-bit C1 byte either.
    expect(Buffer.from(text, 'utf8').equals(raw)).toBe(true);
    const problems: string[] = [];
    const find = (re: RegExp, what: string) => {
      const m = re.exec(text);
      if (m) problems.push(`${what} at ${m.index}: ${JSON.stringify(text.slice(Math.max(0, m.index - 40), m.index + 40))}`);
    };
    find(/\x1b[\]P_^X]/, 'OSC/DCS/APC/PM/SOS introducer');
    find(/[\u0080-\u009f]/, 'C1 control');
    find(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/, 'bidi control');
    // The app writes ESC sequences, CR and LF; nothing else below 0x20, and no DEL.
    find(/[\x00-\x09\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/, 'C0 control or DEL');
    // Between the markers of a payload (same line) the app wrote only text: not a colour, not a move.
    let regions = 0;
    for (const p of PAYLOADS) {
      for (const m of text.matchAll(new RegExp(`Q${p.id}[a-z]a `, 'g'))) {
        const rest = text.slice(m.index, m.index + 400);
        const z = rest.search(new RegExp(`Q?${p.id}[a-z]z`));
        const nl = rest.indexOf('\n');
        if (z < 0 || (nl >= 0 && nl < z)) continue;
        regions++;
        const between = rest.slice(0, z);
        if (/[\x00-\x1f\x7f-\x9f]/.test(between)) problems.push(`#${p.id} ${p.name}: control inside the marked text ${JSON.stringify(between)}`);
      }
      // The payload itself, whole, nowhere (the short SGR ones are covered by the marked regions).
      if (/[\x1b\x80-\x9f]/.test(p.seq) && p.seq.length > 5 && text.includes(p.seq)) problems.push(`#${p.id} ${p.name}: sequence written`);
    }
    expect(problems, problems.slice(0, 20).join('\n')).toEqual([]);
    expect(regions).toBeGreaterThan(200);
    console.log(`pty safety raw bytes: ${raw.length} bytes checked, ${regions} marked regions clean`);
  });

  it("the app's own OSC 52 on the copy key is the only OSC it writes", async () => {
    const { app } = e2e;
    const from = app.mark();
    await app.press('c', /Copied|copied|clipboard/);
    await app.settle(300);
    const after = app.rawSince(from).toString('utf8');
    const oscs = [...after.matchAll(/\x1b\][\s\S]*?(?:\x07|\x1b\\)/g)].map((m) => m[0]);
    expect(oscs).toEqual([`\x1b]52;c;${Buffer.from(address).toString('base64')}\x07`]);
    expect(after.replace(oscs[0]!, '')).not.toMatch(/\x1b[\]P_^X]/);
  });
});
