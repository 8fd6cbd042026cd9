/**
 * What the session's keys do beyond moving around: delete a message on the service, copy a thing
 * (address, code, link), open a link in a browser or show and copy it, save an attachment to the download
 * directory. Each reports on the status
 * line; nothing throws. Results that arrive after the user left the address are dropped (`mounted`).
 */
import { isApiError } from '../api/errors';
import type { TempMailApi } from '../api/types';
import type { OpenResult } from '../core/browser';
import { writeNewFile } from '../core/filenames';
import { makeDirSync } from '../core/make-dir';
import { safeLine } from '../core/safe-text';
import type { AttachmentInfo, Session } from '../core/types';
import { describeError } from './errors';
import { byteSize } from './format';
import { fsReason } from './fs-reason';
import { copiedLine, openedLine, shownInsteadLine } from './status-text';

export interface SessionActionsInput {
  api: TempMailApi;
  session: Session;
  copy: (text: string) => Promise<string>;
  openLink: (url: string) => Promise<OpenResult>;
  downloadDir?: string;
  info: (text: string) => void;
  fail: (text: string) => void;
  /** False once the session view is gone. */
  mounted: { readonly current: boolean };
  /** True while an attachment is being saved (one at a time). */
  saving: { current: boolean };
  /** Milliseconds since the epoch (is the address past its expiry?). */
  clock: () => number;
}

export interface SessionActions {
  /** Deletes a message; true when it is gone from the service (or was already), else says why not. */
  deleteMessage(id: number): Promise<boolean>;
  /** Copies `text`, saying "Copied <what> via ...". */
  copyText(what: string, text: string): void;
  /** Opens link `n` in a browser; where none can open, copies it (the viewer shows it whole). */
  openUrl(n: number, url: string): void;
  /** Downloads an attachment and writes it, new file, mode 0600, into the download directory. */
  saveAttachment(messageId: number, attachment: AttachmentInfo): void;
}

/** The actions of one session, reporting through `info` and `fail`. */
export function sessionActions(input: SessionActionsInput): SessionActions {
  const { api, session, mounted, info, fail } = input;
  const live = <A extends unknown[]>(f: (...args: A) => void) => (...args: A) => {
    if (mounted.current) f(...args);
  };

  const deleteMessage = async (id: number): Promise<boolean> => {
    info('Deleting…');
    try {
      await api.deleteMail(session.token, id);
    } catch (error) {
      // Already gone on the service is what the user wanted anyway.
      if (isApiError(error) && error.kind === 'not_found') return true;
      // An expired address is purged by the service, which then knows its token no more: say why.
      const expired =
        isApiError(error) &&
        (error.kind === 'session_expired' || (error.kind === 'invalid_token' && session.expiresAt.getTime() <= input.clock()));
      live(fail)(expired ? 'Not deleted: this address has expired · press n for a new address' : `Not deleted: ${describeError(error)}`);
      return false;
    }
    return true;
  };

  const copyText = (what: string, text: string) => {
    info(`Copying ${what}…`);
    input.copy(text).then(
      live((said: string) => info(copiedLine(what, said))),
      live((error: unknown) => fail(`${what}: not copied: ${describeError(error)}`)),
    );
  };

  const openUrl = (n: number, url: string) => {
    info(`Opening link ${n}…`);
    input.openLink(url).then(
      live((result: OpenResult) => {
        if (result.opened) return info(openedLine(n, result.opener));
        input.copy(url).then(
          live((said: string) => info(shownInsteadLine(n, result, said))),
          live(() => info(shownInsteadLine(n, result, 'not copied'))),
        );
      }),
      live((error: unknown) => fail(`Link ${n} not opened: ${describeError(error)}`)),
    );
  };

  const saveAttachment = (messageId: number, attachment: AttachmentInfo) => {
    const name = safeLine(attachment.filename.trim() || 'unnamed', 120);
    const dir = input.downloadDir;
    if (!dir) return fail('No download directory is set (downloadDir in config.json or TEMPMAIL_DOWNLOAD_DIR).');
    if (input.saving.current) return info('Still saving the previous attachment…');
    input.saving.current = true;
    info(`Downloading ${name} (${byteSize(attachment.size)})…`);
    api.downloadAttachment(session.token, messageId, attachment.id).then(
      (bytes) => {
        input.saving.current = false;
        let path: string;
        try {
          // Created private if missing; an existing directory is left as the user made it.
          makeDirSync(dir, 0o700);
          path = writeNewFile(dir, attachment.filename, bytes);
        } catch (error) {
          // The reason first: the folder can be long enough to push it off the line.
          return live(fail)(`${name} not saved: ${fsReason(error)} (in ${safeLine(dir, 200)})`);
        }
        // The path says it all: the folder, and the name as made safe and numbered ("a (1).pdf").
        // It leads, so a narrow status line cuts the size rather than the file name.
        live(info)(`Saved to ${safeLine(path, 300)} (${byteSize(bytes.length)})`);
      },
      (error: unknown) => {
        input.saving.current = false;
        live(fail)(`${name} not saved: ${describeError(error)}`);
      },
    );
  };

  return { deleteMessage, copyText, openUrl, saveAttachment };
}
