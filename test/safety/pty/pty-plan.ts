/**
 * What the pseudo-terminal level of the safety matrix sends, as plain data: every payload in every
 * field a user sees through every decoding path it can travel (the same payload x field x path set as
 * the client-level matrix, `fieldsFor` of eml.ts), batched into as few messages as the screen allows.
 * pty-messages.ts turns a spec into a raw mail (SMTP into `serve`) or a wire message (the JSON service).
 *
 * MIME, per batch of payloads: three "T" messages (the text body raw, quoted-printable and base64) and
 * six "H" messages (the HTML body, link text and URL raw, as decimal, hex and named entities,
 * quoted-printable and base64; the sender address, raw only, in the first two). Each message's subject
 * goes through raw 8-bit, B or Q encoded-words in turn, and so do the sender names, a third of the batch
 * per message. The attachments, every file-name path for every payload, are spread four to a message
 * (the viewer lists four). JSON: one T and one H message per batch.
 */
import { fieldsFor, MIME_PATHS, type DecodePath, type MimePath } from '../eml';
import { expectedMarkers, headerSafe, PAYLOADS, type Field, type Payload } from '../payloads';

export type HeaderPath = 'raw8' | 'ewB' | 'ewQ';
export type FilePath = HeaderPath | 'rfc2231';

const HEADER_PATHS: readonly HeaderPath[] = ['ewB', 'raw8', 'ewQ'];
const TEXT_PATHS: readonly MimePath[] = ['raw8', 'qp', 'b64'];
const HTML_PATHS: readonly MimePath[] = ['entDec', 'raw8', 'entHex', 'qp', 'entNamed', 'b64'];
const FILE_PATHS: readonly FilePath[] = ['raw8', 'ewB', 'ewQ', 'rfc2231'];
/** Attachments the viewer lists one per line; more are only counted. */
const FILES_PER_MESSAGE = 4;

/** One message to send: which payloads go in which field, through which path. */
export interface Spec {
  /** First word of the subject, e.g. "B3H4": how the test finds the message on screen. */
  tag: string;
  /** Subject and sender name. */
  headerPath: HeaderPath | 'json';
  subject: Payload[];
  names: Payload[];
  /** In the sender address (a raw quoted local part, or JSON). */
  emails: Payload[];
  body: { type: 'text' | 'html'; path: MimePath | 'json'; payloads: Payload[] };
  files: { payload: Payload; path: FilePath | 'json' }[];
}

/** One payload x field x path case of a message, with the words that must be on its screen. */
export interface Case {
  payload: Payload;
  field: Field;
  path: DecodePath;
  words: string[];
}

const SINGLE_LINE: readonly Field[] = ['subject', 'senderName', 'senderEmail', 'attachmentName'];

function words(payload: Payload, field: Field): string[] {
  const [a, z] = expectedMarkers(payload, field);
  // A URL past 8 KB is dropped by design (MAX_URL_LENGTH); a long payload leaves only its left marker
  // on a cut line, and a long URL wraps mid-word on screen.
  if (field === 'linkUrl' && payload.seq.length > 8000) return [];
  return payload.long && (SINGLE_LINE.includes(field) || field === 'linkUrl') ? [a] : [a, z];
}

/** The cases a spec carries. Within one message each payload is in a field at most once. */
export function casesOf(spec: Spec): Case[] {
  const c =
    (field: Field, path: DecodePath) =>
    (payload: Payload): Case => ({ payload, field, path, words: words(payload, field) });
  const bodyFields: Field[] = spec.body.type === 'text' ? ['textBody'] : ['htmlBody', 'linkText', 'linkUrl'];
  return [
    ...spec.subject.map(c('subject', spec.headerPath)),
    ...spec.names.map(c('senderName', spec.headerPath)),
    ...spec.emails.map(c('senderEmail', spec.headerPath === 'json' ? 'json' : 'raw8')),
    ...bodyFields.flatMap((f) => spec.body.payloads.map(c(f, spec.body.path))),
    ...spec.files.map((f) => c('attachmentName', f.path)(f.payload)),
  ];
}

export const caseKey = (c: Pick<Case, 'payload' | 'field' | 'path'>) => `${c.path} #${c.payload.id} ${c.field}`;

/** The whole matrix from the definitions: every payload, every path, every field it can travel in. */
export function fullMatrix(): Set<string> {
  const paths: DecodePath[] = [...MIME_PATHS, 'json'];
  return new Set(
    paths.flatMap((path) =>
      PAYLOADS.flatMap((payload) => fieldsFor(path, payload).map((field) => caseKey({ payload, field, path }))),
    ),
  );
}

interface Batch {
  name: string;
  index: number;
  payloads: Payload[];
}

/** The short payloads in batches of `size`; each long one alone (a one-line field cuts it). */
function batches(size: number): Batch[] {
  const normal = PAYLOADS.filter((p) => !p.long);
  const out: Batch[] = [];
  for (let i = 0; i < normal.length; i += size)
    out.push({ name: `B${i / size}`, index: i / size, payloads: normal.slice(i, i + size) });
  for (const [i, p] of PAYLOADS.filter((p) => p.long).entries()) out.push({ name: `L${i}`, index: i, payloads: [p] });
  return out;
}

const halves = <T>(list: T[]): [T[], T[]] => [
  list.slice(0, Math.ceil(list.length / 2)),
  list.slice(Math.ceil(list.length / 2)),
];

function mimeBatch({ name, index: b, payloads }: Batch): Spec[] {
  // A raw header cannot carry CR, LF or NUL: those payloads are left out of it (they travel encoded).
  const inHeader = (path: HeaderPath) => (path === 'raw8' ? payloads.filter(headerSafe) : payloads);
  const [emailsA, emailsB] = halves(payloads.filter(headerSafe));
  const specs: Spec[] = [];
  for (let r = 0; r < TEXT_PATHS.length; r++) {
    const headerPath = HEADER_PATHS[(b + r) % HEADER_PATHS.length]!;
    const body = { type: 'text' as const, path: TEXT_PATHS[(b + r) % TEXT_PATHS.length]!, payloads };
    specs.push({
      tag: `${name}T${r}`,
      headerPath,
      subject: inHeader(headerPath),
      names: [],
      emails: [],
      body,
      files: [],
    });
  }
  for (let r = 0; r < HTML_PATHS.length; r++) {
    const headerPath = HEADER_PATHS[(b + r) % HEADER_PATHS.length]!;
    const body = { type: 'html' as const, path: HTML_PATHS[(b + r) % HTML_PATHS.length]!, payloads };
    const emails = r === 0 ? emailsA : r === 1 ? emailsB : [];
    specs.push({ tag: `${name}H${r}`, headerPath, subject: inHeader(headerPath), names: [], emails, body, files: [] });
  }
  // The sender names, each under every header path: a third of them in each message of that path (the
  // app keeps 256 characters of a name, and a raw header leaves an OSC's text once its ESC is gone).
  for (const path of HEADER_PATHS) {
    const carriers = specs.filter((m) => m.headerPath === path);
    const names = inHeader(path);
    const size = Math.ceil(names.length / carriers.length);
    for (const [k, m] of carriers.entries()) m.names.push(...names.slice(k * size, (k + 1) * size));
  }
  // Every payload's file name under every path, each message taking up to four, never one payload twice
  // (its marker words would then not tell the two paths apart).
  for (let s = 0; s < FILE_PATHS.length; s++) {
    payloads.forEach((payload, j) => {
      const path = FILE_PATHS[(b + j + s) % FILE_PATHS.length]!;
      if (path === 'raw8' && !headerSafe(payload)) return;
      const spec = specs.find((m) => m.files.length < FILES_PER_MESSAGE && !m.files.some((f) => f.payload === payload));
      if (!spec) throw new Error(`batch ${name}: no room left for the attachments`);
      spec.files.push({ payload, path });
    });
  }
  return specs;
}

function jsonBatch({ name, payloads }: Batch): Spec[] {
  const [a, z] = halves(payloads);
  return [
    {
      tag: `${name}T`,
      headerPath: 'json',
      subject: payloads,
      names: payloads,
      emails: a,
      body: { type: 'text', path: 'json', payloads },
      files: a.map((payload) => ({ payload, path: 'json' })),
    },
    {
      tag: `${name}H`,
      headerPath: 'json',
      subject: payloads,
      names: [],
      emails: z,
      body: { type: 'html', path: 'json', payloads },
      files: z.map((payload) => ({ payload, path: 'json' })),
    },
  ];
}

/**
 * The runs of the pty level, one test file each so vitest's workers run them side by side: the MIME
 * messages alternately over two `serve` runs, and the JSON service. Each file names its shard.
 */
export const SHARDS = {
  'mime-a': 'pty-matrix.test.ts',
  'mime-b': 'pty-matrix-b.test.ts',
  json: 'pty-matrix-json.test.ts',
} as const;
export type Shard = keyof typeof SHARDS;

export function shardSpecs(shard: Shard): Spec[] {
  if (shard === 'json') return batches(FILES_PER_MESSAGE * 2).flatMap(jsonBatch);
  const all = batches(9).flatMap(mimeBatch);
  return all.filter((_, i) => i % 2 === (shard === 'mime-a' ? 0 : 1));
}

/** Cases per decoding path, e.g. "raw8 412, ewB 160, ...". */
export function perPath(keys: Iterable<string>): string {
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k.split(' ')[0]!, (counts.get(k.split(' ')[0]!) ?? 0) + 1);
  return [...counts].map(([p, n]) => `${p} ${n}`).join(', ');
}
