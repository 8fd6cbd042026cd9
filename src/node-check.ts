/**
 * The shipped entry (dist/cli.js): checks the Node version before anything that needs Node 22 is
 * loaded, then loads the program (dist/app.js, built from src/cli.tsx). On an older Node the bundle
 * would fail to link with a SyntaxError stack; here it is one line and exit 1. No imports, no syntax
 * newer than Node 12, so it runs on the Node it refuses.
 */
const version = process.versions.node;
if (Number(version.split('.')[0]) < 22) {
  process.stderr.write(`tempmail-tui needs Node.js 22 or newer (this is ${version})\n`);
  process.exit(1);
}
// Not a literal: the bundler leaves it alone, so the program stays its own file.
const app = './app.js';
await import(app);
export {};
