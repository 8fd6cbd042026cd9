/**
 * The file store's fetch cursors and statuses (Store.getFetchCursor/putFetchCursor, getFetchStatus/
 * putFetchStatus): one small JSON file in the data dir, `fetch-cursors.json`, held in memory and
 * rewritten whole, durably (temp file, fsync, rename), at each save. Saves are written one after another; each resolves once a file holding it is on disk. A
 * file that does not check out is set aside as `*.corrupt` and fetching starts over from no cursor
 * (the fetcher then checks each message against the inboxes, so nothing is delivered twice).
 */
import { join } from 'node:path';
import { writeFileDurable } from './durable-fs';
import { readStateFile } from './state-file';
import type { FetchCursor, FetchStatus } from '../store';

const NAME = 'fetch-cursors.json';
/** A record per account and folder and a status per account: far below this for any configuration. */
const MAX_BYTES = 16 * 1024 * 1024;

interface CursorRecord extends FetchCursor {
  account: string;
  folder: string;
}

function isRecord(v: unknown): v is CursorRecord {
  const r = v as Record<string, unknown> | null;
  return (
    !!r &&
    typeof r.account === 'string' &&
    typeof r.folder === 'string' &&
    Number.isSafeInteger(r.uidValidity) &&
    Number.isSafeInteger(r.lastUid) &&
    (r.renumberedAt === undefined || Number.isSafeInteger(r.renumberedAt))
  );
}

interface StatusRecord extends FetchStatus {
  account: string;
}

function isStatus(v: unknown): v is StatusRecord {
  const r = v as Record<string, unknown> | null;
  return (
    !!r &&
    typeof r.account === 'string' &&
    typeof r.active === 'boolean' &&
    typeof r.reason === 'string' &&
    Number.isSafeInteger(r.at)
  );
}

/** A copy of the cursor's own fields (renumberedAt only when there is one). */
function cursorOf(c: FetchCursor): FetchCursor {
  return c.renumberedAt === undefined
    ? { uidValidity: c.uidValidity, lastUid: c.lastUid }
    : { uidValidity: c.uidValidity, lastUid: c.lastUid, renumberedAt: c.renumberedAt };
}

const keyOf = (account: string, folder: string) => `${account}\n${folder}`;

/** The cursors of one data dir. */
export class CursorFile {
  private readonly cursors = new Map<string, CursorRecord>();
  private readonly statuses = new Map<string, StatusRecord>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly dataDir: string,
    private readonly log: (line: string) => void,
  ) {}

  /** Reads the file (none yet is fine). */
  async load(): Promise<void> {
    const file = await readStateFile(join(this.dataDir, NAME), {
      maxBytes: MAX_BYTES,
      shape: (json) => {
        const { cursors: records, statuses = [] } = json as { cursors?: unknown; statuses?: unknown };
        const whole =
          Array.isArray(records) && records.every(isRecord) && Array.isArray(statuses) && statuses.every(isStatus);
        return whole ? { records, statuses } : undefined;
      },
      setAside: 'not a cursor file; external accounts are fetched from the start of the session lifetime',
      log: this.log,
    });
    if (!file) return;
    const { records, statuses } = file;
    for (const r of records) this.cursors.set(keyOf(r.account, r.folder), { ...r });
    for (const r of statuses) this.statuses.set(r.account, { ...r });
  }

  status(account: string): FetchStatus | undefined {
    const r = this.statuses.get(account);
    return r && { active: r.active, reason: r.reason, at: r.at };
  }

  /** Saves one status; resolves once it is on disk. */
  putStatus(account: string, status: FetchStatus): Promise<void> {
    this.statuses.set(account, { account, active: status.active, reason: status.reason, at: status.at });
    return this.save();
  }

  get(account: string, folder: string): FetchCursor | undefined {
    const r = this.cursors.get(keyOf(account, folder));
    return r && cursorOf(r);
  }

  /** Saves one cursor; resolves once it is on disk. */
  put(account: string, folder: string, cursor: FetchCursor): Promise<void> {
    this.cursors.set(keyOf(account, folder), { account, folder, ...cursorOf(cursor) });
    return this.save();
  }

  private save(): Promise<void> {
    // Each write takes the maps as they are then, so a later write carries every earlier save too.
    const write = this.writing
      .catch(() => undefined)
      .then(() => {
        const body = JSON.stringify({ cursors: [...this.cursors.values()], statuses: [...this.statuses.values()] });
        return writeFileDurable(this.dataDir, NAME, [Buffer.from(body, 'utf8')]);
      });
    this.writing = write;
    return write;
  }
}
