/**
 * startup_vs_ink: the app's start to its first frame, over the same for the smallest Ink app there is;
 * startup_ratio: the same over a bare Node start. Same run, same pty.
 *
 * - app: spawn of `node dist/cli.js --base-url <serve>` in an 80x24 pty (nothing saved) to the end mark
 *   (ESC[?2026l) of its first frame. Against a running `serve`, so no in-process service starts; the
 *   picker lists the service's domains. One home for all runs: the second start on, Node's compile cache
 *   holds the app's compiled code, as it does for a user.
 * - peer: bench/peer-ink/peer-app.tsx (one <Text>), bundled with the shipped build options into
 *   bench/.cache/peer-ink/ and started the same way, with a compile cache of its own (NODE_COMPILE_CACHE),
 *   to the end mark of its first frame: what Ink and React cost before anything of ours.
 * - baseline: spawn of `node -e 0` in the same kind of pty to its exit.
 * Each is the median of 15 runs (3 with --quick), taken in turns (baseline, app, peer, baseline, ...)
 * after one untimed run of each, so disk cache and machine load weigh on all alike.
 * Also reported: the time to the first frame that lists the domains (`startup_picker_ms`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Figure } from './figure';
import { PtyApp } from '../harness/pty-app';
import { startServe } from '../harness/serve-proc';
import { median, round } from '../harness/stats';
import { tempDir } from '../harness/temp';

async function bareNode(): Promise<number> {
  const node = new PtyApp({ argv: ['-e', '0'] });
  await node.exited;
  return node.exitedAt! - node.spawnedAt;
}

const CACHE = fileURLToPath(new URL('../.cache/', import.meta.url));

/** The peer, bundled as the app is; its path. */
export async function buildPeer(): Promise<string> {
  // @ts-expect-error: a plain .mjs build script without types
  const { buildOptions } = (await import('../../scripts/build-config.mjs')) as {
    buildOptions: (dir: string) => Record<string, unknown>;
  };
  const outdir = join(CACHE, 'peer-ink');
  await build({
    ...buildOptions(outdir),
    entryPoints: ['bench/peer-ink/peer-app.tsx'],
    entryNames: 'peer',
    logLevel: 'silent',
  });
  return join(outdir, 'peer.js');
}

async function peerStart(peer: string): Promise<number> {
  const app = new PtyApp({ argv: [peer], env: { NODE_COMPILE_CACHE: join(CACHE, 'peer-ink-compile-cache') } });
  try {
    const first = await app.nextFrame(() => true, 30_000, "the peer's first frame");
    return first.at - app.spawnedAt;
  } finally {
    await app.stop();
  }
}

async function appStart(baseUrl: string, home: string): Promise<{ firstFrame: number; picker: number }> {
  const app = new PtyApp({ args: ['--base-url', baseUrl], env: { TEMPMAIL_TUI_HOME: home } });
  try {
    const first = app.nextFrame(() => true, 30_000, 'a first frame');
    const picker = app.nextFrame((f) => /Random address on \S+/.test(f.text), 30_000, 'the picker with its domains');
    const [f, p] = await Promise.all([first, picker]);
    return { firstFrame: f.at - app.spawnedAt, picker: p.at - app.spawnedAt };
  } finally {
    await app.stop();
  }
}

export const startup: Figure = {
  name: 'startup',
  keys: ['startup_vs_ink', 'startup_ratio'],
  async run(ctx) {
    const runs = ctx.quick ? 3 : 15;
    const serve = await startServe({ dataDir: tempDir('tempmail-bench-startup-') });
    ctx.defer(() => serve.stop());
    const home = tempDir('tempmail-bench-home-');
    const peer = await buildPeer();
    await bareNode();
    await appStart(serve.baseUrl, home);
    await peerStart(peer);
    const node: number[] = [];
    const first: number[] = [];
    const picker: number[] = [];
    const ink: number[] = [];
    for (let i = 0; i < runs; i++) {
      node.push(await bareNode());
      const a = await appStart(serve.baseUrl, home);
      first.push(a.firstFrame);
      picker.push(a.picker);
      ink.push(await peerStart(peer));
    }
    ctx.log(
      `startup: node -e 0 ${median(node).toFixed(0)} ms, minimal Ink app ${median(ink).toFixed(0)} ms, first frame ${median(first).toFixed(0)} ms (median of ${runs})`,
    );
    return {
      startup_vs_ink: round(median(first) / median(ink)),
      startup_ratio: round(median(first) / median(node)),
      startup_first_frame_ms: round(median(first)),
      startup_ink_peer_ms: round(median(ink)),
      startup_picker_ms: round(median(picker)),
      startup_node_ms: round(median(node)),
      startup_runs: runs,
    };
  },
};
