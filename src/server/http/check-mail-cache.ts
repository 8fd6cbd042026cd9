/**
 * check-mail answers, built once per version of an inbox's listing. Each message's wire row is
 * serialized once (its time formatted once) and kept while the message is listed; the whole answer is
 * kept as bytes with its ETag until the listing changes. A request then costs the session lookup and
 * the version check (InboxView: in memory for the file store, one small query for Postgres), whatever
 * the inbox holds.
 *
 * Validated, not invalidated: every request asks the store for the listing's version, so an answer is
 * never stale, also when another service on the same database stored or deleted mail. Requests that find
 * a new version at once share one rebuild. The answers kept are bounded by bytes, least recently used
 * first out.
 */
import { createHash } from 'node:crypto';
import { formatWireTime } from '../../platform/time';
import type { InboxView, MessageMeta } from '../service/service-types';

/** What check-mail answers: the JSON bytes and their strong ETag (a hash of them). */
export interface CheckMailAnswer {
  body: Buffer;
  etag: string;
}

interface Entry extends CheckMailAnswer {
  version: string;
  /** Builds are numbered: one that read the listing earlier never replaces a later one. */
  seq: number;
  /** The JSON of each listed message's summary, by id (a message never changes once stored). */
  rows: Map<number, string>;
  bytes: number;
}

/** Default bound of the bytes kept (answers and rows). */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** One summary as check-mail lists it (docs/server/http-api.md). */
export function summaryRow(m: MessageMeta) {
  return {
    id: m.id,
    sender_name: m.senderName,
    sender_email: m.senderEmail,
    subject: m.subject,
    received_at: formatWireTime(m.receivedAt),
    has_attachments: m.hasAttachments,
  };
}

/** A strong ETag for `body`: the same bytes always get the same tag, on every instance. */
function etagOf(body: Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * True when an If-None-Match header names `etag` (or is `*`). Weak comparison, as RFC 9110 asks for
 * If-None-Match: a `W/` prefix is ignored.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === etag;
  });
}

/** The check-mail answers of one HTTP front end. */
export class CheckMailCache {
  private readonly entries = new Map<string, Entry>();
  private readonly building = new Map<string, { version: string; done: Promise<Entry> }>();
  private bytes = 0;
  private seq = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  /** The answer for `view` now: kept when its version is unchanged, else built (once for all asking). */
  async answer(view: InboxView): Promise<CheckMailAnswer> {
    const kept = this.entries.get(view.key);
    if (kept?.version === view.version) {
      // Most recently used goes last, so the oldest is first out.
      this.entries.delete(view.key);
      this.entries.set(view.key, kept);
      return kept;
    }
    const pending = this.building.get(view.key);
    if (pending?.version === view.version) return pending.done;
    const done = this.build(view, kept);
    this.building.set(view.key, { version: view.version, done });
    try {
      return await done;
    } finally {
      if (this.building.get(view.key)?.done === done) this.building.delete(view.key);
    }
  }

  /** How many bytes are kept now (tests check the bound). */
  get size(): number {
    return this.bytes;
  }

  private async build(view: InboxView, previous: Entry | undefined): Promise<Entry> {
    const seq = ++this.seq;
    const list = await view.list();
    const rows = new Map<number, string>();
    const parts: string[] = [];
    let rowBytes = 0;
    for (const m of list) {
      const row = previous?.rows.get(m.id) ?? rows.get(m.id) ?? JSON.stringify(summaryRow(m));
      rows.set(m.id, row);
      parts.push(row);
      rowBytes += row.length;
    }
    const body = Buffer.from(`{"status":"success","messages":[${parts.join(',')}]}`, 'utf8');
    const entry: Entry = {
      version: view.version,
      seq,
      rows,
      body,
      etag: etagOf(body),
      bytes: body.length + rowBytes * 2,
    };
    this.keep(view.key, entry);
    return entry;
  }

  private keep(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old && old.seq > entry.seq) return;
    if (old) {
      this.entries.delete(key);
      this.bytes -= old.bytes;
    }
    // An answer bigger than the whole bound is served, not kept.
    if (entry.bytes > this.maxBytes) return;
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= e.bytes;
    }
  }
}
