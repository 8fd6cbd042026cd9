/**
 * The on-disk form of one stored message: one file, written whole before it is acknowledged.
 *
 *   line 1   JSON header: {v:1, meta..., parts:[bodyLen, rawLen, att1Len, ...]} and "\n"
 *   then     the parsed body as JSON (to, cc, text, html, headers), parts[0] bytes
 *   then     the raw message, parts[1] bytes, exactly as received
 *   then     each attachment's bytes
 *
 * The header holds only what a listing needs, so opening a store reads a few hundred bytes per message.
 * A file whose size does not match its header is corrupt (or was cut short by a crash before its 250)
 * and is never served.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { StoredAttachmentMeta, StoredMessageBody, StoredMessageMeta } from '../store';

const VERSION = 1;
const NEWLINE = 0x0a;
const HEADER_CHUNK = 16 * 1024;

/** Where the sections of a message file are. */
export interface MessageLayout {
  meta: StoredMessageMeta;
  /** Byte offset of the body JSON (the header length plus its newline). */
  bodyOffset: number;
  /** Lengths: [body, raw, ...attachments]. */
  parts: number[];
}

/** The chunks to write for a message (header, body, raw, attachments). */
export function encodeMessageFile(
  meta: StoredMessageMeta,
  body: StoredMessageBody,
  raw: Buffer,
  attachments: readonly Buffer[],
): Buffer[] {
  const bodyBytes = Buffer.from(JSON.stringify(body), 'utf8');
  const parts = [bodyBytes.length, raw.length, ...attachments.map((a) => a.length)];
  // JSON.stringify escapes every control character, so the header can never contain a raw newline.
  const header = Buffer.from(`${JSON.stringify({ v: VERSION, ...meta, parts })}\n`, 'utf8');
  return [header, bodyBytes, raw, ...attachments];
}

/** Offset and length of section `index` (0 body, 1 raw, 2.. attachments). */
export function sectionOf(layout: MessageLayout, index: number): { position: number; length: number } | undefined {
  const length = layout.parts[index];
  if (length === undefined) return undefined;
  let position = layout.bodyOffset;
  for (let i = 0; i < index; i++) position += layout.parts[i] ?? 0;
  return { position, length };
}

/** Reads and checks a message file's header. Throws CorruptFileError when it is not a whole, valid file. */
export async function readMessageLayout(path: string, expectedId: number): Promise<MessageLayout> {
  // Never through a symlink, never blocking on a FIFO that took the file's place.
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const { size } = await fh.stat();
    const chunks: Buffer[] = [];
    let read = 0;
    let newlineAt = -1;
    while (newlineAt < 0 && read < size) {
      const buf = Buffer.alloc(Math.min(HEADER_CHUNK, size - read));
      const { bytesRead } = await fh.read(buf, 0, buf.length, read);
      if (bytesRead === 0) break;
      const idx = buf.subarray(0, bytesRead).indexOf(NEWLINE);
      if (idx >= 0) newlineAt = read + idx;
      chunks.push(buf.subarray(0, bytesRead));
      read += bytesRead;
    }
    if (newlineAt < 0) throw new CorruptFileError('no header line');
    const header = parseHeader(Buffer.concat(chunks).subarray(0, newlineAt).toString('utf8'));
    if (header.meta.id !== expectedId) throw new CorruptFileError('id does not match the file name');
    const total = newlineAt + 1 + header.parts.reduce((a, b) => a + b, 0);
    if (total !== size) throw new CorruptFileError(`size ${size}, header says ${total}`);
    return { meta: header.meta, bodyOffset: newlineAt + 1, parts: header.parts };
  } finally {
    await fh.close();
  }
}

/** A file that exists but is not a valid message or session: never served, set aside at open. */
export class CorruptFileError extends Error {
  override readonly name = 'CorruptFileError';
}

function parseHeader(line: string): { meta: StoredMessageMeta; parts: number[] } {
  let h: Record<string, unknown>;
  try {
    h = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new CorruptFileError('header is not JSON');
  }
  const isLen = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  const parts = h.parts;
  if (
    h.v !== VERSION ||
    !Array.isArray(parts) ||
    parts.length < 2 ||
    !parts.every(isLen) ||
    !Number.isSafeInteger(h.id) ||
    typeof h.senderName !== 'string' ||
    typeof h.senderEmail !== 'string' ||
    typeof h.subject !== 'string' ||
    typeof h.receivedAt !== 'number' ||
    !isLen(h.size) ||
    !Array.isArray(h.attachments) ||
    h.attachments.length !== parts.length - 2
  ) {
    throw new CorruptFileError('header fields are missing or wrong');
  }
  const attachments = (h.attachments as StoredAttachmentMeta[]).map((a) => ({
    id: a.id,
    filename: String(a.filename),
    contentType: String(a.contentType),
    size: a.size,
  }));
  const meta: StoredMessageMeta = {
    id: h.id as number,
    senderName: h.senderName,
    senderEmail: h.senderEmail,
    subject: h.subject,
    receivedAt: h.receivedAt,
    size: h.size,
    attachments,
    // Kept since the admin API came; older files have neither.
    ...(typeof h.clientIp === 'string' ? { clientIp: h.clientIp } : {}),
    ...(typeof h.envelopeFrom === 'string' ? { envelopeFrom: h.envelopeFrom } : {}),
  };
  return { meta, parts: parts as number[] };
}

/** Parses and checks the body section. */
export function parseBody(bytes: Buffer): StoredMessageBody {
  let b: Record<string, unknown>;
  try {
    b = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new CorruptFileError('body is not JSON');
  }
  const strOrNull = (v: unknown) => (typeof v === 'string' ? v : null);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const headers: Record<string, string> = {};
  if (b.headers && typeof b.headers === 'object') {
    for (const [k, v] of Object.entries(b.headers)) if (typeof v === 'string') headers[k] = v;
  }
  return {
    to: strings(b.to),
    cc: strings(b.cc),
    text: strOrNull(b.text),
    html: strOrNull(b.html),
    headers,
    ...(b.parseOnRead === true ? { parseOnRead: true as const } : {}),
  };
}
