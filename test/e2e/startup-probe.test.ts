/**
 * What the built app does before its first frame, watched from inside the process (first-frame-probe.mjs,
 * loaded with `node --import`), beside the same run's peers: the smallest Ink app there is
 * (bench/peer-ink/peer-app.tsx, bundled with the shipped build options) and a bare Node script that
 * reads a file and asks our service for its domains over node:http, as the first frame's domains come. The app may load
 * no Node built-in module and build no Intl object before its first frame that neither peer needs: what
 * our own code loads on the way (the message reader, the server, got, child processes) waits until it
 * is used. Holding it relative to the peers keeps it true on every Node (on Node 24 node:http itself
 * loads node:crypto) and every Ink version; undici and node:http2 are named outright.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { buildOptions } from '../../scripts/build-config.mjs';
import { waitFor } from '../harness/wait';
import { startServeProcess, stopServe, type ServeReady } from '../harness/serve-process';
import { CLI, spawnApp, type PtyApp } from './pty-harness';

const PROBE = fileURLToPath(new URL('./first-frame-probe.mjs', import.meta.url));

interface Probe {
  firstFrame: boolean;
  frameNonAscii: string;
  modulesAtFirstFrame: string[];
  modulesAtExit: string[];
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

/** The probe's record of `args` (run by node in a pty) once it has seen the first frame, or the exit. */
async function probe(home: string, name: string, args: string[], untilFrame = true): Promise<Probe> {
  const out = join(home, `${name}.json`);
  const env: NodeJS.ProcessEnv = { TEMPMAIL_TUI_HOME: home, FIRST_FRAME_PROBE_OUT: out, NODE_OPTIONS: undefined };
  for (const key of Object.keys(process.env))
    if (/^(TEMPMAIL_|XDG_)/.test(key) && key !== 'TEMPMAIL_TUI_HOME') env[key] = undefined;
  const proc = spawnApp({ command: { file: process.execPath, args: ['--import', PROBE, ...args] }, env });
  app = proc;
  const read = async () => JSON.parse(await readFile(out, 'utf8')) as Probe;
  try {
    if (untilFrame)
      return await waitFor(async () => ((await read().catch(() => undefined))?.firstFrame ? read() : undefined), {
        message: `${name}'s first frame`,
      });
    await proc.exited();
    return await read();
  } finally {
    proc.kill();
    app = undefined;
  }
}

const count = (p: Probe) => {
  const byName: Record<string, number> = {};
  for (const i of p.intl) if (!i.afterFirstFrame) byName[i.name] = (byName[i.name] ?? 0) + 1;
  return byName;
};

describe('before the first frame', () => {
  it('loads no Node module and builds no Intl object that a minimal Ink app and a node:http request do not, nor undici', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tempmail-probe-home-'));
    dirs.push(home);
    serve = await startServeProcess(['--data-dir', join(home, 'data')]);
    const peerDir = join(home, 'peer');
    await build({
      ...buildOptions(peerDir),
      entryPoints: ['bench/peer-ink/peer-app.tsx'],
      entryNames: 'peer',
      logLevel: 'silent',
    });

    const ours = await probe(home, 'app', [CLI, '--base-url', serve.baseUrl]);
    const peer = await probe(home, 'peer', [join(peerDir, 'peer.js')]);
    const domains = `${serve.baseUrl.replace(/\/$/, '')}/domains`;
    // Node's own modules as an ES module imports them (a named import of node:net evaluates its lazy
    // getters too), reading files with fs/promises and asking for the domains over node:http.
    const script = [
      "import { get } from 'node:http'; import { createServer } from 'node:net'; import { readFile } from 'node:fs/promises';",
      `void createServer; await readFile(${JSON.stringify(PROBE)});`,
      `get(new URL(${JSON.stringify(domains)}), { signal: AbortSignal.timeout(10000) }, (r) => r.resume().on('end', () => process.exit(0)));`,
    ].join('\n');
    // A file, not `-e`: Node's ESM eval path loads modules of its own (worker_threads).
    await writeFile(join(home, 'http-peer.mjs'), script);
    const http = await probe(home, 'http', [join(home, 'http-peer.mjs')], false);

    expect(ours.frameNonAscii).toContain('·'); // the first frame has text past ASCII to measure
    expect(ours.modulesAtFirstFrame).toContain('NativeModule tty'); // the probe reads the real list
    expect(http.modulesAtExit).toContain('NativeModule http');
    const allowed = new Set([...peer.modulesAtFirstFrame, ...http.modulesAtExit]);
    expect(ours.modulesAtFirstFrame.filter((m) => !allowed.has(m))).toEqual([]);
    // Nor undici, which yoga's loader would bring (with node:tls and node:http2) by fetch()ing its inline
    // wasm: the UI loads with no global fetch (src/tui/shell/load-ui.ts); the peer does load it. Nor
    // node:http2: got (which brings it) loads once the first frame is out, and node:http is required,
    // not imported (src/platform/node-http.ts: on Node 24 its ES namespace loads undici and http2).
    expect(ours.modulesAtFirstFrame).not.toContain('NativeModule internal/deps/undici/undici');
    expect(ours.modulesAtFirstFrame).not.toContain('NativeModule http2');
    expect(peer.modulesAtFirstFrame).toContain('NativeModule internal/deps/undici/undici');
    const [ourIntl, peerIntl] = [count(ours), count(peer)];
    for (const [name, n] of Object.entries(ourIntl))
      expect(n, `${name} objects`).toBeLessThanOrEqual(peerIntl[name] ?? 0);
  }, 90_000);
});
