// Bundles the CLI into ESM files under dist/: a bundle starts about twice as fast as resolving hundreds
// of modules from node_modules, and the shipped binary needs no TypeScript runtime. The options are in
// build-config.mjs.
import { build } from 'esbuild';
import { buildOptions } from './build-config.mjs';

await build(buildOptions('dist'));
