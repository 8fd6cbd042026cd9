/**
 * What the tests of `serve`'s settings share: config files written to a temporary folder (removed after
 * the test file's tests) and the message of the UsageError a setting is refused with.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { UsageError } from '../../src/server/config/serve-config';

/**
 * A writer of config files for this test file: each call writes `content` (text as it is, anything else
 * as JSON) to `serve.json` in a folder of its own, and resolves with its path.
 */
export function configFiles(prefix: string): (content: unknown) => Promise<string> {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  return async (content) => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    dirs.push(dir);
    const file = join(dir, 'serve.json');
    await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
}

/** The message of the UsageError `fn` throws; the test fails when it throws none, or another error. */
export function usageRefusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error('expected a UsageError');
}
