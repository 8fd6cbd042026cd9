// Bundles the CLI into ESM files under dist/: a bundle starts about twice as fast as resolving hundreds
// of modules from node_modules, and the shipped binary needs no TypeScript runtime.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

await build({
  absWorkingDir: root,
  entryPoints: ['src/cli.tsx'],
  // Split at the dynamic imports of src/cli.tsx: `--help` loads a few KB, the app never parses the
  // service's SMTP and MIME code unless it starts the local service, and `serve` never parses React.
  outdir: 'dist',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  // Smaller files parse faster; stack traces are never shown to users, so names are not needed.
  minify: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  define: { __VERSION__: JSON.stringify(pkg.version), 'process.env.NODE_ENV': '"production"' },
  // Ink imports react-devtools-core only when DEV is set; a stub keeps it out of the bundle.
  alias: { 'react-devtools-core': './scripts/devtools-stub.mjs' },
  // Some bundled CommonJS packages call require(); give the ESM bundle one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});
