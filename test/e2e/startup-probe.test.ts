/**
 * What the built app does before its first frame, watched from inside the process (first-frame-probe.mjs,
 * loaded with `node --import`): it builds no Intl object (the first one loads ICU's data, ~9 ms; the first
 * frame's "·" and "…" are measured without a segmenter, see src/text/graphemes.ts) and loads neither
 * node:crypto, node:child_process nor node:assert (scripts/build-config.mjs). And the probe does see a segmenter built once text needs one: a combining mark typed into
 * the custom name.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../harness/wait';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { isPicker } from './flow';
import { CLI, spawnApp, type PtyApp } from './pty-harness';

const PROBE = fileURLToPath(new URL('./first-frame-probe.mjs', import.meta.url));

interface Probe {
  firstFrame: boolean;
  frameNonAscii: string;
  modulesAtFirstFrame: string[];
  intl: { name: string; afterFirstFrame: boolean }[];
}

let serve: ServeReady | undefined;
let app: PtyApp | undefined;
const dirs: string[] = [];
afterEach(async () => {
  app?.kill();
  app = undefined;
  if (serve) await stopServe(serve);
  serve = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('before the first frame', () => {
  it('builds no Intl object and loads no node:crypto, child_process or assert; a combining mark typed later builds the segmenter', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tempmail-probe-home-'));
    dirs.push(home);
    serve = await startServeProcess(['--data-dir', join(home, 'data')]);
    const out = join(home, 'probe.json');
    const env: NodeJS.ProcessEnv = { TEMPMAIL_TUI_HOME: home, FIRST_FRAME_PROBE_OUT: out, NODE_OPTIONS: undefined };
    for (const key of Object.keys(process.env)) if (/^(TEMPMAIL_|XDG_)/.test(key) && key !== 'TEMPMAIL_TUI_HOME') env[key] = undefined;
    app = spawnApp({ command: { file: process.execPath, args: ['--import', PROBE, CLI, '--base-url', serve.baseUrl] }, env });
    const read = async () => JSON.parse(await readFile(out, 'utf8')) as Probe;
    const first = await waitFor(async () => ((await read().catch(() => undefined))?.firstFrame ? read() : undefined), { message: 'the probe to see the first frame' });

    expect(first.frameNonAscii).toContain('·'); // the first frame has text past ASCII to measure
    expect(first.modulesAtFirstFrame).toContain('NativeModule tty'); // the probe reads the real list
    for (const later of ['crypto', 'child_process', 'assert']) expect(first.modulesAtFirstFrame).not.toContain(`NativeModule ${later}`);
    expect(first.intl.filter((i) => !i.afterFirstFrame)).toEqual([]);

    await app.waitForScreen(isPicker);
    await app.press('3', /name/i);
    await app.press('e\u0301');
    const later = await waitFor(async () => ((await read()).intl.some((i) => i.name === 'Segmenter') ? read() : undefined), { message: 'a segmenter for the combining mark' });
    expect(later.intl.every((i) => i.afterFirstFrame)).toBe(true);
  }, 60_000);
});
