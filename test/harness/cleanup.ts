/**
 * Per-test cleanup for files that start things (services, processes, temp dirs) inside their tests:
 * whatever a test registers is undone after it, last first, even when the test failed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export interface Cleanup {
  /** Runs `undo` after the current test (after those registered later); returns `value`, for chaining. */
  defer<T>(value: T, undo: (value: T) => unknown): T;
  /** Runs `undo` after the current test (after those registered later). */
  after(undo: () => unknown): void;
  /** A fresh directory under the system temp dir, removed after the current test. */
  tempDir(prefix?: string): Promise<string>;
}

/** Registers the afterEach that does the undoing; call it once, at the top level of a test file. */
export function cleanupAfterEach(): Cleanup {
  const pending: (() => unknown)[] = [];
  afterEach(async () => {
    for (const undo of pending.splice(0).reverse()) await undo();
  });
  const defer = <T>(value: T, undo: (value: T) => unknown): T => {
    pending.push(() => undo(value));
    return value;
  };
  return {
    defer,
    after: (undo) => {
      pending.push(undo);
    },
    async tempDir(prefix = 'tempmail-test-') {
      return defer(await mkdtemp(join(tmpdir(), prefix)), (dir) => rm(dir, { recursive: true, force: true }));
    },
  };
}
