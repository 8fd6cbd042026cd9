/**
 * The app holds V8's young generation at the size it has once the first frame is out
 * (src/platform/young-generation.ts): a long session's polls must not walk it up to 16 MB a semi-space.
 *
 * A probe loaded with `--import` into the built program (the app itself is not touched) answers SIGUSR2
 * by keeping ~60 MB of objects alive across scavenges, the pattern that makes V8 grow the space, and
 * writes the new space's size before and after (once the full collections the burst caused are done:
 * with the old generation held near live there are many, and each commits pages to the new space for a
 * while, ~5-20 MB more for a moment, back to the held size within a timer turn). The same probe in a bare
 * Node process is the control: there the space grows, and stays grown, so the app's answer means something.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/wait';
import { neutralEnv } from './flow';
import { CLI, spawnApp, type PtyApp } from './pty-harness';

const PROBE = `
import { getHeapSpaceStatistics } from 'node:v8';
import { writeFileSync } from 'node:fs';
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
process.on('SIGUSR2', async () => {
  const before = newSpace();
  const kept = [];
  for (let round = 0; round < 1500; round++) {
    const batch = [];
    for (let i = 0; i < 2000; i++) batch.push({ n: i, s: 'x' + i, a: [i, i + 1] });
    kept.push(batch);
    if (kept.length > 20) kept.shift();
  }
  kept.length = 0;
  // Pages V8 commits to the space for a while during a full collection are let go once it is done: the
  // size is read once it is back at or under where it was, or after 5 s (a space that grew stays grown).
  let after = newSpace();
  for (let waited = 0; after > before && waited < 5000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    after = newSpace();
  }
  writeFileSync(process.env.PROBE_OUT, JSON.stringify({ before, after }));
});
if (process.env.PROBE_SELF) process.kill(process.pid, 'SIGUSR2');
`;

interface Sizes {
  before: number;
  after: number;
}

let app: PtyApp | undefined;
let home: string | undefined;
afterEach(async () => {
  app?.kill();
  if (home) await rm(home, { recursive: true, force: true });
  app = undefined;
  home = undefined;
});

async function probeFiles(): Promise<{ probe: string; out: string }> {
  home = await mkdtemp(join(tmpdir(), 'tempmail-e2e-young-'));
  const probe = join(home, 'probe.mjs');
  writeFileSync(probe, PROBE);
  return { probe, out: join(home, 'sizes.json') };
}

const readSizes = (out: string): Sizes | undefined =>
  existsSync(out) ? (JSON.parse(readFileSync(out, 'utf8')) as Sizes) : undefined;

describe('young generation', () => {
  it('grows under that load in a bare Node process (the control)', async () => {
    const { probe, out } = await probeFiles();
    const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, '-e', 'setTimeout(() => {}, 100)'], {
      env: { ...neutralEnv(), PROBE_OUT: out, PROBE_SELF: '1' },
      stdio: 'ignore',
    });
    await new Promise((resolve) => child.on('close', resolve));
    const sizes = readSizes(out);
    expect(sizes).toBeDefined();
    expect(sizes!.after).toBeGreaterThan(sizes!.before);
  });

  it('does not grow in the app once its first frame is out', async () => {
    const { probe, out } = await probeFiles();
    app = spawnApp({
      command: { file: process.execPath, args: ['--import', pathToFileURL(probe).href, CLI] },
      env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, PROBE_OUT: out },
      cols: 100,
      rows: 30,
    });
    await app.waitForScreen(/Random address on/);
    await app.settle(100);
    process.kill(app.pid(), 'SIGUSR2');
    const sizes = await waitFor(() => readSizes(out), { timeoutMs: 20_000, message: 'the probe to report' });
    expect(sizes.after).toBeLessThanOrEqual(sizes.before);
    // Still the app: it answers a key after the probe's work.
    await app.press('q');
    expect(await app.exited()).toBe(0);
  });
});
