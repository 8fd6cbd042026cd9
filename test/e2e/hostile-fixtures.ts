/**
 * The hostile sample messages, what each one carries (its control sequences, found by parsing the
 * message the way the service does, so quoted-printable and encoded words count too) and the words a
 * user must still see.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { HOSTILE_DIR } from '../harness/fixtures';
import { controlTokens } from './terminal-bytes';

/** The hostile fixtures kept in the repo (test/fixtures/hostile), so every machine runs the same set. */
export function hostileDir(): string {
  return HOSTILE_DIR;
}

export interface HostileFixture {
  name: string;
  /** The raw message with `{TO}` still in it. */
  raw: Buffer;
  subject: string;
  /** Control tokens the message carries, decoded (ESC sequences, C0, DEL, C1, bidi); never \r \n \t. */
  payloads: string[];
  /** Words that must be on the screen when the message is open. */
  visible: string[];
  /** Text that must not be on the screen (e.g. script source). */
  hidden: string[];
}

// What a reader must see of the known samples. A new sample without an entry still gets its subject's
// words checked.
const EXPECTED: Record<string, { visible: string[]; hidden?: string[] }> = {
  '01-raw-csi-subject.eml': { visible: ['Your code', 'RED', 'inside', 'CSI clear-screen', 'cursor move', 'here.'] },
  '02-bidi-sender.eml': { visible: ['evil', 'Bank', 'Invoice ready', 'right-to-left override'] },
  '03-qp-escape.eml': { visible: ['Quoted printable', 'Line with', 'blinking', 'and a bell', 'here.'] },
  '04-html-script.eml': {
    visible: ['HTML with script', 'Welcome', 'Confirm your account', 'https://example.test/confirm?t=abc'],
    hidden: ['alert(1)'],
  },
  '05-nul-and-del.eml': { visible: ['NUL', 'DEL', 'in subject', 'Body with', 'backspaces', 'XYZ'] },
};

/** The words of `text` once every control token is taken out. */
function wordsOf(text: string): string[] {
  let plain = text;
  for (const token of controlTokens(text)) plain = plain.replace(token, ' ');
  return plain.split(/\s+/).filter((w) => /^[A-Za-z]{3,}$/.test(w));
}

/** Loads every `.eml` of the hostile fixtures, sorted by name. */
export async function loadHostileFixtures(): Promise<HostileFixture[]> {
  const dir = hostileDir();
  const names = readdirSync(dir)
    .filter((n) => n.endsWith('.eml'))
    .sort();
  const out: HostileFixture[] = [];
  for (const name of names) {
    const raw = readFileSync(resolve(dir, name));
    const parsed = await simpleParser(raw);
    const subject = parsed.subject ?? '';
    const decoded = [subject, parsed.from?.text ?? '', parsed.text ?? '', parsed.html || ''].join('\n');
    const payloads = new Set(
      [...controlTokens(raw.toString('utf8')), ...controlTokens(decoded)].filter(
        (t) => !['\r', '\n', '\t'].includes(t),
      ),
    );
    const expected = EXPECTED[name];
    out.push({
      name,
      raw,
      subject,
      payloads: [...payloads],
      visible: expected?.visible ?? wordsOf(subject),
      hidden: expected?.hidden ?? [],
    });
  }
  return out;
}

/** The fixture's bytes addressed to `to`. */
export function addressed(fixture: HostileFixture, to: string): Buffer {
  return Buffer.from(fixture.raw.toString('latin1').replaceAll('{TO}', to), 'latin1');
}
