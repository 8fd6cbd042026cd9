/**
 * `npm run bench`: what a user of the built program sees, measured from outside (docs/performance.md).
 *
 *   npm run bench                      every figure, full size (several minutes), as a table
 *   npm run bench -- --quick           every figure small and fast (what CI runs)
 *   npm run bench -- --only key,idle   some figures (names: see --list)
 *   npm run -s bench -- --json         one JSON object on stdout (progress goes to stderr)
 *   --out FILE                         also write the JSON to FILE
 *   --no-build                         measure dist/ as it is (default: build it first)
 *   --node PATH                        run what is measured (app, serve, peers) under that Node binary
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { FIGURES } from './figures/all';
import { KEY_TABLE } from './figures/key-table';
import type { RunContext, Values } from './figures/figure';
import { machineLoad } from './harness/proc';
import { measuredNode } from './harness/pty-app';
import { removeTempDirs } from './harness/temp';

const { values: flags } = parseArgs({
  options: {
    json: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    node: { type: 'string' },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

if (flags.help || flags.list) {
  process.stdout.write(`${FIGURES.map((f) => `${f.name.padEnd(12)} ${f.keys.join(', ')}`).join('\n')}\n`);
  process.exit(0);
}

const wanted = flags.only
  ?.split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = wanted?.filter((w) => !FIGURES.some((f) => f.name === w)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(
    `bench: no figure named ${unknown.join(', ')}; there are ${FIGURES.map((f) => f.name).join(', ')}\n`,
  );
  process.exit(2);
}
const selected = FIGURES.filter((f) => !wanted || wanted.includes(f.name));

/** What the running figure must undo (stop its processes), also when the bench itself is stopped. */
let undo: (() => unknown)[] = [];
const undoAll = async () => {
  for (const fn of undo.splice(0).reverse())
    await Promise.resolve(fn()).catch((e: unknown) => log(`cleanup: ${String(e)}`));
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping what this run started`);
    void undoAll().finally(() => {
      removeTempDirs();
      process.exit(130);
    });
  });
}

if (flags.node) process.env.TEMPMAIL_BENCH_NODE = flags.node;
const nodeVersion = execFileSync(measuredNode(), ['--version'], { encoding: 'utf8' }).trim();
// "v24.22.3" as 24.22: the JSON holds numbers only.
const nodeMajorMinor = Number(nodeVersion.replace(/^v(\d+)\.(\d+).*$/, '$1.$2'));

if (!flags['no-build']) {
  log('building dist/ (npm run build)');
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: ['ignore', 2, 2],
  });
}

const started = performance.now();
const before = machineLoad();
log(
  `${before.cores} cores, load average ${before.load1} at start; Node ${nodeVersion}; ${flags.quick ? 'quick' : 'full'} run of ${selected.map((f) => f.name).join(', ')}`,
);
const results: Values = {};
const failed: string[] = [];
let loadMax = before.load1;
for (const figure of selected) {
  const load = machineLoad().load1;
  loadMax = Math.max(loadMax, load);
  log(`${figure.name} (load average ${load})`);
  undo = [];
  const ctx: RunContext = { quick: flags.quick, log: (line) => log(line), defer: (fn) => undo.push(fn) };
  const t = performance.now();
  try {
    Object.assign(results, await figure.run(ctx));
    log(`${figure.name} done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } catch (error) {
    failed.push(figure.name);
    log(`${figure.name} FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  } finally {
    await undoAll();
  }
}
removeTempDirs();
const after = machineLoad();
Object.assign(results, {
  machine_cores: after.cores,
  node_version: nodeMajorMinor,
  machine_load1_start: before.load1,
  machine_load1_end: after.load1,
  machine_load1_max: Math.max(loadMax, after.load1),
  bench_quick: flags.quick ? 1 : 0,
  bench_seconds: Math.round((performance.now() - started) / 1000),
});

const json = JSON.stringify(results);
if (flags.out) writeFileSync(flags.out, `${json}\n`);
if (flags.json) {
  process.stdout.write(`${json}\n`);
} else {
  const rows = KEY_TABLE.filter((k) => k.key in results).map(
    (k) => `${k.key.padEnd(32)} ${String(results[k.key]).padStart(10)}   goal ${k.goal.padEnd(8)} ${k.what}`,
  );
  const extra = Object.entries(results)
    .filter(([k]) => !KEY_TABLE.some((t) => t.key === k))
    .map(([k, v]) => `  ${k} ${v}`);
  process.stdout.write(`${rows.join('\n')}\n\nraw figures and baselines:\n${extra.join('\n')}\n`);
}
if (failed.length > 0) {
  log(`failed: ${failed.join(', ')}`);
  process.exit(1);
}
// Lingering handles (a pty read, a keep-alive socket) must not keep a finished bench alive.
process.exit(0);
