// Bundles the CLI into ESM files under dist/: a bundle starts about twice as fast as resolving hundreds
// of modules from node_modules, and the shipped binary needs no TypeScript runtime. The options are in
// build-config.mjs. The old dist/ goes first: chunk names carry a content hash, so every build would
// otherwise leave the previous chunks behind.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { buildOptions } from './build-config.mjs';

rmSync('dist', { recursive: true, force: true });
await build(buildOptions('dist'));
