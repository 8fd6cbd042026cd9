// Loaded with `node --import` before the built `serve` by metrics.test.ts: registers load-hooks.mjs, which
// appends the URL of every ES module the program loads to the file named by LOAD_PROBE_OUT. It only
// watches: every module loads as it would.
import { register } from 'node:module';

register(new URL('./load-hooks.mjs', import.meta.url));
