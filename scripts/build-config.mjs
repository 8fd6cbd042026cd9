// The esbuild options of the shipped bundle, shared by scripts/build.mjs and the test that checks what
// the app loads before its first frame (test/e2e/startup-bundle.test.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
/** What `string-width` resolves to, in the shipped build and in the tests. */
export const STRING_WIDTH = './src/text/terminal-width.ts';
/**
 * What Ink's own imports of these packages resolve to (no other importer's): React's reconciler with a
 * root's terminal widths entered at each of its renders, and Ink's text caches keyed by those widths as
 * well as by text, so one process draws for terminals that measure differently (text/active-widths.ts).
 */
export const INK_STAND_INS = {
  'react-reconciler': './src/tui/terminal/root-widths.ts',
  'quick-lru': './src/text/width-keyed-lru.ts',
};
/** Whether `importer` (a file path) is one of Ink's own files. */
export const isInkFile = (importer) => /[\\/]node_modules[\\/]ink[\\/]/.test(importer ?? '');

/** An esbuild plugin giving Ink's imports their stand-ins (INK_STAND_INS). */
const inkStandIns = {
  name: 'ink-stand-ins',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(INK_STAND_INS).join('|')})$`);
    build.onResolve({ filter }, (args) =>
      isInkFile(args.importer) ? { path: `${root}/${INK_STAND_INS[args.path].slice(2)}` } : undefined,
    );
  },
};

/** esbuild options writing to `outdir` (relative to the repo root). */
export function buildOptions(outdir = 'dist') {
  return {
    absWorkingDir: root,
    // dist/cli.js (the bin) checks the Node version, then loads dist/app.js, the program.
    entryPoints: [
      { in: 'src/node-check.ts', out: 'cli' },
      { in: 'src/cli.tsx', out: 'app' },
    ],
    // Split at the dynamic imports: `--help` loads a few KB; the app never parses the service's SMTP
    // and MIME code unless it starts the local service, nor the message reader (html-to-text, code
    // detection) before the first message; `serve` never parses React.
    outdir,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    splitting: true,
    bundle: true,
    // Smaller files parse faster; stack traces are never shown to users, so names are not needed.
    minify: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: false,
    legalComments: 'none',
    // ssh2's poly1305 loader (Emscripten) reads __dirname, which ESM has not: the chunk's own folder.
    define: {
      __VERSION__: JSON.stringify(pkg.version),
      'process.env.NODE_ENV': '"production"',
      __dirname: 'import.meta.dirname',
    },
    // Ink imports react-devtools-core only when DEV is set; a stub keeps it out of the bundle. Ink and
    // its helpers (wrap-ansi, slice-ansi, cli-truncate, widest-line) measure text with string-width:
    // they get our measure instead (src/text/terminal-width.ts, same signature), so Ink lays out with
    // the widths the app cuts by, the widths no terminal draws wider (docs/architecture.md, "Cell
    // widths"). vitest.config.ts aliases it the same way.
    alias: { 'react-devtools-core': './scripts/devtools-stub.mjs', 'string-width': STRING_WIDTH },
    plugins: [inkStandIns],
    // ssh2's native speed-ups (sshcrypto.node, cpu-features) are optional: each require() is in a
    // try, and ssh2 uses its JavaScript code when it fails, as it does from the bundle.
    external: ['*.node'],
    // Some bundled CommonJS packages call require(); give the ESM bundle one.
    banner: {
      js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'warning',
  };
}
