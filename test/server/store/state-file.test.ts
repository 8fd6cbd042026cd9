/**
 * The data dir's JSON files beside the messages (blocks.json, fetch-cursors.json) are read through
 * readStateFile: the store's own contents come back; nothing there is not an error; anything else (bad
 * JSON, JSON of another shape, `null`, a FIFO) is set aside as *.corrupt with one line, and nothing read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStateFile } from '../../../src/server/store/file/state-file';
import { cleanupAfterEach } from '../../harness/cleanup';

const cleanup = cleanupAfterEach();

const numbers = (log: string[]) => ({
  maxBytes: 1024,
  shape: (json: unknown) => {
    const list = (json as { numbers?: unknown } | null)?.numbers;
    return Array.isArray(list) && list.every((n) => typeof n === 'number') ? (list as number[]) : undefined;
  },
  setAside: 'not a list of numbers',
  log: (line: string) => log.push(line),
});

describe('readStateFile', () => {
  it("reads the store's own contents, and nothing when there is no file", async () => {
    const dir = await cleanup.tempDir('tempmail-state-file-');
    const log: string[] = [];
    expect(await readStateFile(join(dir, 'absent.json'), numbers(log))).toBeUndefined();
    await writeFile(join(dir, 'good.json'), JSON.stringify({ numbers: [1, 2, 3] }));
    expect(await readStateFile(join(dir, 'good.json'), numbers(log))).toEqual([1, 2, 3]);
    expect(log).toEqual([]);
  });

  it('sets aside bad JSON, another shape, null, a file past its size and a FIFO, each with one line', async () => {
    const dir = await cleanup.tempDir('tempmail-state-file-');
    const cases: Record<string, string> = {
      'truncated.json': '{"numbers": [1, 2',
      'shape.json': JSON.stringify({ numbers: ['one'] }),
      'null.json': 'null',
      'large.json': JSON.stringify({ numbers: Array.from({ length: 600 }, (_, i) => i) }),
    };
    for (const [name, text] of Object.entries(cases)) await writeFile(join(dir, name), text);
    execFileSync('mkfifo', [join(dir, 'fifo.json')]);
    for (const name of [...Object.keys(cases), 'fifo.json']) {
      const log: string[] = [];
      const path = join(dir, name);
      expect(await readStateFile(path, numbers(log)), name).toBeUndefined();
      expect(log, name).toEqual([`store: set aside ${path}: not a list of numbers`]);
      expect(existsSync(path), name).toBe(false);
      expect(existsSync(`${path}.corrupt`), name).toBe(true);
    }
    // Set aside as it was: the operator can look at what was there.
    expect(await readFile(join(dir, 'truncated.json.corrupt'), 'utf8')).toBe('{"numbers": [1, 2');
  });
});
