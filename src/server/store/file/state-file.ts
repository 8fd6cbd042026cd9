/**
 * The JSON files a data dir keeps beside its messages (blocks.json, fetch-cursors.json), read as every
 * file is that someone else may have put there (operator-file.ts: a regular file, size-capped). What is
 * there but is not what the store writes (bad JSON, another shape, a FIFO, /dev/zero, far too large) is
 * set aside as `*.corrupt` with one line saying what that means, and the store goes on without it.
 */
import { rename } from 'node:fs/promises';
import { OperatorFileError, readOperatorFile } from '../../../platform/operator-file';
import { storageErrorText } from '../store';
import { logEvent } from '../../observe/log';

export interface StateFileRead<T> {
  maxBytes: number;
  /** The file's contents from its parsed JSON, or undefined when they are not the store's shape. */
  shape(json: unknown): T | undefined;
  /** What setting it aside means, for the log ("not a block list; ..."). */
  setAside: string;
  log(line: string): void;
}

/** The contents of the file at `path`; undefined when there is none, or when it was set aside. */
export async function readStateFile<T>(path: string, read: StateFileRead<T>): Promise<T | undefined> {
  let text = '';
  try {
    text = (await readOperatorFile(path, { maxBytes: read.maxBytes })).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (!(error instanceof OperatorFileError && (error.code === 'not-regular' || error.code === 'too-large')))
      throw error;
  }
  let value: T | undefined;
  try {
    value = read.shape(JSON.parse(text));
  } catch {
    value = undefined;
  }
  if (value !== undefined) return value;
  logEvent(read.log, {
    level: 'warn',
    event: 'store.set_aside',
    text: `store: set aside ${path}: ${read.setAside}`,
    jsonFields: { reason: read.setAside },
  });
  const failed = (err: unknown) =>
    logEvent(read.log, {
      level: 'error',
      event: 'store.failed',
      text: `store: could not set aside ${path}: ${storageErrorText(err)}`,
      jsonFields: { reason: storageErrorText(err) },
    });
  await rename(path, `${path}.corrupt`).catch(failed);
  return undefined;
}
