/**
 * What the session's keys do beyond moving around: delete a message on the service, copy a thing
 * (address, code, link), open a link in a browser or show and copy it, save an attachment or the whole
 * message (.eml) to the download directory (asking first when its name is taken there). Each reports on
 * the status line; nothing throws. Results that arrive after the user left the address are dropped
 * (`mounted`).
 */
import { homedir } from 'node:os';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { isApiError } from '../../client/api-error';
import type { MailProvider } from '../../client/client-types';
import type { OpenResult } from '../../platform/browser';
import { replaceFile, safeFileName, uniquePath, writeFileIfNew, writeNewFile } from '../../state/download-files';
import { makeDirSync } from '../../platform/make-dir';
import { safeLine } from '../../text/safe-text';
import {
  expiryMs,
  type AttachmentInfo,
  type MessageId,
  type MessageSource,
  type MessageSummary,
  type Session,
} from '../../model/mail-types';
import { describeError } from '../wording/error-text';
import { byteSize } from '../wording/display-format';
import { fsReason } from '../wording/fs-reason';
import { copiedLine, openedLine, shownInsteadLine } from '../wording/status-text';

export interface SessionActionsInput {
  api: MailProvider;
  session: Session;
  copy: (text: string) => Promise<string>;
  openLink: (url: string) => Promise<OpenResult>;
  downloadDir?: string;
  /** What saving says instead where nothing is saved (the default names the setting). */
  noDownload?: string;
  /** A transient line (done). */
  info: (text: string) => void;
  /** A line that stays until the next one (under way: "Deleting…"). */
  progress: (text: string) => void;
  fail: (text: string) => void;
  /** False once the session view is gone. */
  mounted: { readonly current: boolean };
  /** True while an attachment or a message is being saved (one at a time). */
  saving: { current: boolean };
  /** Milliseconds since the epoch (is the address past its expiry?). */
  clock: () => number;
  /** Asks what to do with a downloaded attachment whose file name is taken (answered by `answerConflict`). */
  ask: (conflict: SaveConflict) => void;
}

/** A downloaded attachment (or message) whose file name exists in the download directory: the question `a` and `S` ask. */
export interface SaveConflict {
  kind: 'overwrite';
  /** The name as the service gave it. */
  filename: string;
  /** That name made safe: the file that exists in `dir`. */
  name: string;
  dir: string;
  /** The directory as shown ("~/Downloads"). */
  where: string;
  /** The name "keep both" would take now ("report (1).pdf"). */
  keepName: string;
  bytes: Uint8Array;
}

/** What `S` says where the service gives no raw message. */
export const NO_RAW_MESSAGE = 'No .eml to save: this service gives no raw message (R shows what it gives)';

/**
 * A saved message's name: its subject as a name a shell takes as it is (letters, digits, dots, dashes and
 * underscores; every other run a dash), "message-<id>" when nothing is left.
 */
export function emlStem(message: Pick<MessageSummary, 'subject' | 'id'>): string {
  const name = (s: string) => s.replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '-').replace(/^[-.]+|[-.]+$/g, '');
  return name(message.subject) || name(`message-${message.id}`) || 'message';
}

/** The answers: o replaces the file, k saves beside it, any other key leaves it. */
export type ConflictChoice = 'overwrite' | 'keep' | 'cancel';

export interface SessionActions {
  /** Deletes a message; true when it is gone from the service (or was already), else says why not. */
  deleteMessage(id: MessageId): Promise<boolean>;
  /** Copies `text`, saying "Copied <what> via ...". */
  copyText(what: string, text: string): void;
  /** Opens link `n` in a browser; where none can open, copies it (the viewer shows it whole). */
  openUrl(n: number, url: string): void;
  /** Downloads an attachment and writes it, new file, mode 0600, into the download directory; asks when the name is taken. */
  saveAttachment(messageId: MessageId, attachment: AttachmentInfo): void;
  /** Saves the message as "<subject>.eml" from its source (fetched by `source`), like an attachment. */
  saveMessage(message: MessageSummary, source: () => Promise<MessageSource>): void;
  /** Acts on the answer to `ask`. */
  answerConflict(conflict: SaveConflict, choice: ConflictChoice): void;
}

/** The actions of one session, reporting through `info` and `fail`. */
export function sessionActions(input: SessionActionsInput): SessionActions {
  return {
    deleteMessage: (id) => deleteOnService(input, id),
    copyText: (what, text) => copyText(input, what, text),
    openUrl: (n, url) => openUrl(input, n, url),
    saveAttachment: (messageId, attachment) => saveAttachment(input, messageId, attachment),
    saveMessage: (message, source) => saveMessage(input, message, source),
    answerConflict: (q, choice) => answerConflict(input, q, choice),
  };
}

/** `f`, called only while the session view is there. */
function live<A extends unknown[]>(input: SessionActionsInput, f: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    if (input.mounted.current) f(...args);
  };
}

async function deleteOnService(input: SessionActionsInput, id: MessageId): Promise<boolean> {
  const { api, session } = input;
  input.progress('Deleting…');
  try {
    await api.deleteMessage(session, id);
  } catch (error) {
    // Already gone on the service is what the user wanted anyway.
    if (isApiError(error) && error.kind === 'not_found') return true;
    // An expired address is purged by the service, which then knows its token no more: say why.
    const expired =
      isApiError(error) &&
      (error.kind === 'session_expired' || (error.kind === 'invalid_token' && expiryMs(session) <= input.clock()));
    live(
      input,
      input.fail,
    )(
      expired
        ? 'Not deleted: this address has expired · press n for a new address'
        : `Not deleted: ${describeError(error)}`,
    );
    return false;
  }
  return true;
}

function copyText(input: SessionActionsInput, what: string, text: string): void {
  const { info, fail } = input;
  input.progress(`Copying ${what}…`);
  input.copy(text).then(
    live(input, (said: string) => info(copiedLine(what, said))),
    live(input, (error: unknown) => fail(`${what}: not copied: ${describeError(error)}`)),
  );
}

function openUrl(input: SessionActionsInput, n: number, url: string): void {
  const { info, fail } = input;
  input.progress(`Opening link ${n}…`);
  input.openLink(url).then(
    live(input, (result: OpenResult) => {
      if (result.opened) return info(openedLine(n, result.opener));
      input.copy(url).then(
        live(input, (said: string) => info(shownInsteadLine(n, result, said))),
        live(input, () => info(shownInsteadLine(n, result, 'not copied'))),
      );
    }),
    live(input, (error: unknown) => fail(`Link ${n} not opened: ${describeError(error)}`)),
  );
}

/**
 * One write into the download directory: says where the file went (the path leads, so a narrow line cuts
 * the size rather than the name), or why not (the reason first: a long folder could push it off the
 * line). False when `write` found the name taken.
 */
function writeOut(
  input: SessionActionsInput,
  name: string,
  dir: string,
  size: number,
  write: () => string | null,
  done = 'Saved to',
): boolean {
  let path: string | null;
  try {
    path = write();
  } catch (error) {
    live(input, input.fail)(`${name} not saved: ${fsReason(error)} (in ${safeLine(dir, 200)})`);
    return true;
  }
  if (path === null) return false;
  live(input, input.info)(`${done} ${safeLine(path, 300)} (${byteSize(size)})`);
  return true;
}

/** Writes downloaded bytes into the download directory as `filename` (made safe), asking when it is taken. */
function saveBytes(
  input: SessionActionsInput,
  name: string,
  filename: string,
  download: () => Promise<Uint8Array>,
  what: string,
): void {
  const dir = input.downloadDir;
  if (!dir)
    return input.fail(
      input.noDownload ?? 'No download directory is set (downloadDir in config.json or TEMPMAIL_DOWNLOAD_DIR).',
    );
  if (input.saving.current) return input.info('Still saving the previous file…');
  input.saving.current = true;
  input.progress(what);
  download().then(
    (bytes) => {
      input.saving.current = false;
      const fresh = () => {
        // Created private if missing; an existing directory is left as the user made it.
        makeDirSync(dir, 0o700);
        return writeFileIfNew(dir, filename, bytes);
      };
      if (writeOut(input, name, dir, bytes.length, fresh)) return;
      // The name is taken. Nobody left to ask (the user left this address): keep both, never replace.
      if (!input.mounted.current)
        return void writeOut(input, name, dir, bytes.length, () => writeNewFile(dir, filename, bytes));
      const safe = safeFileName(filename);
      const keepName = basename(uniquePath(dir, safe));
      input.ask({ kind: 'overwrite', filename, name: safe, dir, where: homeRelative(dir), keepName, bytes });
    },
    (error: unknown) => {
      input.saving.current = false;
      live(input, input.fail)(`${name} not saved: ${describeError(error)}`);
    },
  );
}

function saveAttachment(input: SessionActionsInput, messageId: MessageId, attachment: AttachmentInfo): void {
  const name = safeLine(attachment.filename.trim() || 'unnamed', 120);
  saveBytes(
    input,
    name,
    attachment.filename,
    () => input.api.downloadAttachment(input.session, messageId, attachment),
    `Downloading ${name} (${byteSize(attachment.size)})…`,
  );
}

function saveMessage(input: SessionActionsInput, message: MessageSummary, source: () => Promise<MessageSource>): void {
  const filename = `${emlStem(message)}.eml`;
  const name = safeLine(safeFileName(filename), 120);
  input.progress(`Saving ${name}…`);
  source().then(
    live(input, (got: MessageSource) => {
      if (got.kind !== 'raw') return input.info(NO_RAW_MESSAGE);
      saveBytes(input, name, filename, async () => got.bytes, `Saving ${name}…`);
    }),
    live(input, (error: unknown) => input.fail(`${name} not saved: ${describeError(error)}`)),
  );
}

function answerConflict(input: SessionActionsInput, q: SaveConflict, choice: ConflictChoice): void {
  const size = q.bytes.length;
  if (choice === 'overwrite')
    writeOut(input, q.name, q.dir, size, () => replaceFile(q.dir, q.filename, q.bytes), 'Replaced');
  else if (choice === 'keep') writeOut(input, q.name, q.dir, size, () => writeNewFile(q.dir, q.filename, q.bytes));
  else input.info(`Cancelled: ${q.name} left as it was`);
}

// "~/Downloads" for a folder under the home directory: the question has to fit on one line.
function homeRelative(dir: string): string {
  const rest = relative(homedir(), resolve(dir));
  const under = !rest.startsWith('..') && !isAbsolute(rest);
  return safeLine(under ? join('~', rest) : dir, 200);
}
