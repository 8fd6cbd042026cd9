/**
 * startup_ratio: the app's start to its first frame, over a bare Node start, same run, same pty.
 *
 * - app: spawn of `node dist/cli.js --base-url <serve>` in an 80x24 pty (fresh home, nothing saved) to
 *   the end mark (ESC[?2026l) of its first frame. Against a running `serve`, so no in-process service
 *   starts; the picker lists the service's domains.
 * - baseline: spawn of `node -e 0` in the same kind of pty to its exit.
 * Each is the median of >= 10 runs (3 with --quick), taken in turns (baseline, app, baseline, ...) after
 * one untimed run of each, so disk cache and machine load weigh on both alike.
 * Also reported: the time to the first frame that lists the domains (`startup_picker_ms`).
 */
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
  keys: ['startup_ratio'],
  async run(ctx) {
    const runs = ctx.quick ? 3 : 15;
    const serve = await startServe({ dataDir: tempDir('tempmail-bench-startup-') });
    ctx.defer(() => serve.stop());
    const home = tempDir('tempmail-bench-home-');
    await bareNode();
    await appStart(serve.baseUrl, home);
    const node: number[] = [];
    const first: number[] = [];
    const picker: number[] = [];
    for (let i = 0; i < runs; i++) {
      node.push(await bareNode());
      const a = await appStart(serve.baseUrl, home);
      first.push(a.firstFrame);
      picker.push(a.picker);
    }
    ctx.log(`startup: node -e 0 ${median(node).toFixed(0)} ms, first frame ${median(first).toFixed(0)} ms (median of ${runs})`);
    return {
      startup_ratio: round(median(first) / median(node)),
      startup_first_frame_ms: round(median(first)),
      startup_picker_ms: round(median(picker)),
      startup_node_ms: round(median(node)),
      startup_runs: runs,
    };
  },
};
