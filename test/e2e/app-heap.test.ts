/**
 * The V8 flags the app sets once its first frame is out (APP_V8_FLAGS, src/platform/young-generation.ts)
 * take effect in the built program: all of them are set, a full collection follows at once (so the old
 * generation's next limit is set with them), and V8's Maglev tier makes no more code (its compiler
 * threads' malloc arenas stayed resident, ~10 MB). What they save is a memory figure, so it is the
 * bench's (`appmem`, docs/performance.md), not asserted here: how far the old generation overshoots its
 * limit depends on how busy the machine is (a collection's marking runs beside the allocation).
 *
 * A probe loaded with `--import` into the built program (the app itself is not touched) writes what it
 * saw, as PROBE_LOAD says. The same probe in a bare Node process is the control: there V8's defaults
 * show, so the app's answer means something.
 * - gc (no signal): the flags the app sets, and a full collection that starts within 5 s after them.
 * - maglev: a function made hot between timer turns; whether V8's status of it ever showed Maglev code,
 *   and whether it was ever optimized at all (by Turbofan, where Maglev is off). Node 22's V8 (12.4) has
 *   Maglev off by default: there the control shows none either.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_V8_FLAGS } from '../../src/platform/young-generation';
import { waitFor } from '../harness/wait';
import { neutralEnv } from './flow';
import { CLI, spawnApp, type PtyApp } from './pty-harness';

const PROBE = `
import v8 from 'node:v8';
import { writeFileSync } from 'node:fs';
async function maglevLoad() {
  v8.setFlagsFromString('--allow-natives-syntax');
  const status = new Function('f', 'return %GetOptimizationStatus(f)');
  const hot = new Function('a', 'let s = 0; for (let i = 0; i < a.length; i++) s += a[i] * 2; return s;');
  const input = Array.from({ length: 50 }, (_, i) => i);
  let seen = 0;
  for (let round = 0; round < 300; round++) {
    for (let i = 0; i < 50; i++) hot(input);
    await new Promise((resolve) => setTimeout(resolve, 1));
    seen |= status(hot);
  }
  // V8's status bits: 16 optimized, 32 Maglev code.
  return { optimized: (seen & 16) !== 0, maglev: (seen & 32) !== 0 };
}
// gc: notes when the app sets its heap flags (node:v8's function wrapped before the app loads it), and
// reports the first full collection that starts within 5 s after.
if (process.env.PROBE_LOAD === 'gc') {
  const { createRequire, syncBuiltinESMExports } = await import('node:module');
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const shared = createRequire(import.meta.url)('node:v8');
  const set = shared.setFlagsFromString;
  let flagsAt;
  const flagsSet = [];
  shared.setFlagsFromString = (flags) => {
    flagsSet.push(...flags.split(' '));
    if (flagsAt === undefined && flags.includes('--heap-growing-percent')) flagsAt = performance.now();
    return set(flags);
  };
  syncBuiltinESMExports();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (flagsAt === undefined || entry.detail.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const after = entry.startTime - flagsAt;
      if (after >= 0 && after < 5000) writeFileSync(process.env.PROBE_OUT, JSON.stringify({ after, flags: flagsSet }));
    }
  }).observe({ entryTypes: ['gc'] });
}
// pool: ~90 MB of objects held, then let go, then garbage that lives a little (so it is promoted and the
// old generation's own full collections come, as under polls), until three of those have finished after
// the let-go (or 8 s). RSS before, at the peak, and after. V8 keeps the pages of a shrunk heap in a pool
// until a collection that reduces memory; without one, RSS stays near the peak.
async function poolLoad() {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const before = process.memoryUsage().rss;
  let held = [];
  for (let i = 0; i < 600000; i++) held.push({ a: i, b: 'x' + i, c: [i] });
  const peak = process.memoryUsage().rss;
  held = null;
  // Collections made while the objects were held are reported late: only those started after count.
  const droppedAt = performance.now();
  let majors = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR && entry.startTime > droppedAt) majors++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const kept = [];
  const start = performance.now();
  while (majors < 3 && performance.now() - start < 8000) {
    const batch = [];
    for (let i = 0; i < 20000; i++) batch.push({ n: i, s: 'y' + i });
    kept.push(batch);
    if (kept.length > 10) kept.shift();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  kept.length = 0;
  observer.disconnect();
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { before, peak, after: process.memoryUsage().rss, majors };
}
process.on('SIGUSR2', async () => {
  const result = process.env.PROBE_LOAD === 'pool' ? await poolLoad() : await maglevLoad();
  writeFileSync(process.env.PROBE_OUT, JSON.stringify(result));
});
if (process.env.PROBE_SELF) process.kill(process.pid, 'SIGUSR2');
`;

let app: PtyApp | undefined;
let home: string | undefined;
afterEach(async () => {
  app?.kill();
  if (home) await rm(home, { recursive: true, force: true });
  app = undefined;
  home = undefined;
});

async function probeFiles(): Promise<{ probe: string; out: string }> {
  home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-heap-'));
  const probe = join(home, 'probe.mjs');
  writeFileSync(probe, PROBE);
  return { probe, out: join(home, 'out.json') };
}

const readOut = <T>(out: string): T | undefined =>
  existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as T) : undefined;

/** The probe's load in a bare Node process, flags at V8's defaults. */
async function inBareNode<T>(load: string): Promise<T> {
  const { probe, out } = await probeFiles();
  const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, '-e', 'setTimeout(() => {}, 20000)'], {
    env: { ...neutralEnv(), PROBE_OUT: out, PROBE_SELF: '1', PROBE_LOAD: load },
    stdio: 'ignore',
  });
  return waitFor(() => readOut<T>(out), { timeoutMs: 60_000, message: 'the bare probe to report' }).finally(() =>
    child.kill(),
  );
}

/** The probe's load in the app, once its first frame is out. */
async function inApp<T>(load: string): Promise<T> {
  const { probe, out } = await probeFiles();
  app = spawnApp({
    command: { file: process.execPath, args: ['--import', pathToFileURL(probe).href, CLI] },
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, PROBE_OUT: out, PROBE_LOAD: load },
    cols: 100,
    rows: 30,
  });
  await app.waitForScreen(/Random address on/);
  await app.settle(100);
  process.kill(app.pid(), 'SIGUSR2');
  const result = await waitFor(() => readOut<T>(out), { timeoutMs: 60_000, message: 'the probe to report' });
  // Still the app: it answers a key after the probe's work.
  await app.press('q');
  expect(await app.exited()).toBe(0);
  return result;
}

interface PoolResult {
  before: number;
  peak: number;
  after: number;
  majors: number;
}

const MiB = 1024 * 1024;

interface MaglevResult {
  optimized: boolean;
  maglev: boolean;
}

describe('the app heap', () => {
  it('sets every one of its heap flags once its first frame is out, and a full collection starts right after them', async () => {
    const { probe, out } = await probeFiles();
    app = spawnApp({
      command: { file: process.execPath, args: ['--import', pathToFileURL(probe).href, CLI] },
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, PROBE_OUT: out, PROBE_LOAD: 'gc' },
      cols: 100,
      rows: 30,
    });
    await app.waitForScreen(/Random address on/);
    // Without it, the limit set during start-up stands until the old generation reaches it (V8's memory
    // reducer, the other way to a full collection, waits 8 s after the last one).
    const seen = await waitFor(() => readOut<{ after: number; flags: string[] }>(out), {
      timeoutMs: 10_000,
      message: 'a full collection within 5 s after the flags',
    });
    expect(seen.after).toBeLessThan(5000);
    expect(seen.flags).toEqual(expect.arrayContaining(APP_V8_FLAGS));
    await app.press('q');
    expect(await app.exited()).toBe(0);
  }, 60_000);

  it('gives back the pages of a heap that shrank at its next full collections; the control keeps them', async () => {
    const grown = (r: PoolResult) => r.after - r.before;
    const control = await inBareNode<PoolResult>('pool');
    expect(control.peak - control.before).toBeGreaterThan(50 * MiB);
    expect(grown(control)).toBeGreaterThan((control.peak - control.before) / 2);
    const seen = await inApp<PoolResult>('pool');
    expect(seen.peak - seen.before).toBeGreaterThan(40 * MiB);
    expect(seen.majors).toBeGreaterThanOrEqual(3);
    expect(grown(seen)).toBeLessThan((seen.peak - seen.before) / 2);
  }, 90_000);

  it("Maglev: the control makes Maglev code of a hot function on Node 24 (Node 22's V8 has Maglev off)", async () => {
    const seen = await inBareNode<MaglevResult>('maglev');
    expect(seen.maglev).toBe(Number(process.versions.node.split('.')[0]) >= 24);
  }, 60_000);

  it('Maglev: the app makes none once its first frame is out, and still optimizes hot code', async () => {
    const seen = await inApp<MaglevResult>('maglev');
    expect(seen).toEqual({ optimized: true, maglev: false });
  }, 60_000);
});
