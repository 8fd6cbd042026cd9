// The esbuild options of the shipped bundle, shared by scripts/build.mjs and the test that checks what
// the app loads before its first frame (test/e2e/startup-bundle.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));

// yoga-layout (Ink's layout engine) carries its wasm inline, as a data: URL, and its emscripten loader
// fetch()es that URL whenever a global fetch exists: in Node that loads undici and decodes ~120 KB of
// base64 through it, ~30 ms of the start-up. Its own fallback (atob) is what it does without fetch.
export const YOGA_LOADER = /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/;
const FETCH_TEST = '"function"!=typeof fetch?Promise.resolve()';

/** The yoga loader without its fetch of the inline wasm; unchanged (and a warning) if yoga changed. */
export function yogaWithoutFetch(source) {
  if (!source.includes(FETCH_TEST)) console.warn('build: yoga-layout loader changed; its wasm is fetched as before');
  return source.replace(FETCH_TEST, '!0?Promise.resolve()');
}

// Its own path then decodes the ~96 KB of base64 with atob into a string, copied into bytes one char
// at a time (~3 ms); Node's base64 decoder gives the same bytes in a tenth of that.
const ATOB_DECODE = 'var b=xa(a.slice(37)),c=new Uint8Array(b.length);for(a=0;a<b.length;++a)c[a]=b.charCodeAt(a);var d=c';

/** The yoga loader decoding its wasm with Buffer; unchanged (and a warning) if yoga changed. */
export function yogaDecodeWithBuffer(source) {
  if (!source.includes(ATOB_DECODE) || !source.includes('startsWith("data:application/octet-stream;base64,")')) {
    console.warn('build: yoga-layout loader changed; its wasm is decoded with atob as before');
    return source;
  }
  return source.replace(ATOB_DECODE, () => 'var d=new Uint8Array(Buffer.from(a.slice(37),"base64"))');
}

// Ink's output.js builds each frame from nothing; src/tui/terminal/ink-rows.ts is the same assembly with
// the rows of the last frame remembered (see there). Its get() replaces Ink's, fed Ink's own functions.
export const INK_OUTPUT = /ink[\\/]build[\\/]output\.js$/;
const INK_OUTPUT_NEEDS = ['export default class Output', 'styledCharsToString', 'styledCharsFromTokens', 'tokenize', 'sliceAnsi', 'stringWidth'];

/** Ink's output.js with its get() replaced by the row-cached one; unchanged (and a warning) if Ink changed. */
export function inkOutputWithRowCache(source) {
  if (!INK_OUTPUT_NEEDS.every((name) => source.includes(name)) || !source.includes('get() {')) {
    console.warn('build: ink/build/output.js changed; frames are assembled by Ink as before');
    return source;
  }
  const rows = JSON.stringify(`${root}/src/tui/terminal/ink-rows.ts`);
  return `${source}
import { rowCachedGet as __rowCachedGet } from ${rows};
Output.prototype.get = __rowCachedGet({ tokenize, styledCharsFromTokens, styledCharsToString, sliceAnsi, stringWidth });
`;
}

// Ink's render-node-to-output.js measures every text of every frame again (widest-line: string-width on
// each line), though the frame before measured the same texts: most of a countdown tick's layout work.
// The same function, Ink's own copy, remembered with ink-rows.ts's recentMemo (bounded).
export const INK_RENDER_NODE = /ink[\\/]build[\\/]render-node-to-output\.js$/;
const WIDEST_LINE_IMPORT = "import widestLine from 'widest-line';";

/** Ink's render-node-to-output.js with widestLine remembered; unchanged (and a warning) if Ink changed. */
export function inkRenderWithWidthMemo(source) {
  if (!source.includes(WIDEST_LINE_IMPORT)) {
    console.warn('build: ink/build/render-node-to-output.js changed; text widths are measured every frame as before');
    return source;
  }
  const rows = JSON.stringify(`${root}/src/tui/terminal/ink-rows.ts`);
  return source.replace(
    WIDEST_LINE_IMPORT,
    `import __widestLine from 'widest-line';
import { recentMemo as __recentMemo } from ${rows};
const widestLine = __recentMemo((text) => __widestLine(text));`,
  );
}

// string-width (Ink's measure of every text it lays out, and ours: src/text/text-width.ts) builds
// /^\p{RGI_Emoji}$/v when it loads and runs it on every grapheme cluster of a non-ASCII string: building
// that set costs ~15 ms and its first match ~17 ms more, both before the first frame (whose "…" and "·"
// take that path). A cluster can only be an RGI emoji when its first code point is an emoji character,
// and a lone code point only when it has emoji presentation (UTS #51; test/text checks it over every
// code point): the regex is built on the first cluster that passes that test, and asked only about those.
// The copy Ink loads (wrap-ansi keeps an older one of its own, without that regex).
export const STRING_WIDTH = createRequire(`${root}/node_modules/ink/package.json`).resolve('string-width');
const RGI_DECLARATION = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
const RGI_TEST = 'rgiEmojiRegex.test(segment)';
/** What an RGI emoji cluster starts with (test/text checks that no RGI emoji fails it). */
export const MAY_BE_RGI_EMOJI = String.raw`^(?:\p{Emoji_Presentation}$|\p{Emoji}.)`;
const RGI_LAZY = `let rgiEmojiRegex;
const mayBeRgiEmoji = /${MAY_BE_RGI_EMOJI}/su;
function isRgiEmoji(segment) {
	if (!mayBeRgiEmoji.test(segment)) return false;
	rgiEmojiRegex ??= new RegExp('^\\\\p{RGI_Emoji}$', 'v');
	return rgiEmojiRegex.test(segment);
}`;

/** string-width with its emoji regex built lazily and asked only about possible emoji; unchanged (and a warning) if string-width changed. */
export function stringWidthLazyEmoji(source) {
  if (!source.includes(RGI_DECLARATION) || source.split(RGI_TEST).length !== 2) {
    console.warn('build: string-width changed; its emoji regex is built at load as before');
    return source;
  }
  return source.replace(RGI_TEST, 'isRgiEmoji(segment)').replace(RGI_DECLARATION, () => RGI_LAZY);
}

export const stringWidthPlugin = {
  name: 'string-width-lazy-emoji',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) =>
      args.path === STRING_WIDTH ? { contents: withLazyGraphemes(args.path, stringWidthLazyEmoji(await readFile(args.path, 'utf8'))), loader: 'js' } : undefined,
    );
  },
};

// Ink's string-width, wrap-ansi's own string-width, slice-ansi and @alcalzone/ansi-tokenize (Ink's frame
// tokenizer, ink-rows.ts's too) each build an Intl.Segmenter when they load, and the first Intl object
// loads ICU's data: ~9 ms before the first frame, whose text is one cluster per code point anyway. Each
// gets src/text/graphemes.ts's stand-in instead: the same segments, without ICU unless a code point that
// can join its neighbours comes (test/text checks the packages give the same answers with it).
/** The folder of package `name` as Node finds it from `fromDir` (ESM-only packages export no require path). */
function packageDir(name, fromDir) {
  const found = createRequire(`${fromDir}/package.json`).resolve.paths(name)?.find((d) => existsSync(`${d}/${name}/package.json`));
  if (!found) throw new Error(`build: ${name} not found from ${fromDir}`);
  return `${found}/${name}`;
}
const INK_DIR = packageDir('ink', root);
const GRAPHEME_SEGMENTERS = [
  { file: STRING_WIDTH, name: 'segmenter', declaration: 'const segmenter = new Intl.Segmenter();' },
  {
    file: `${packageDir('string-width', packageDir('wrap-ansi', INK_DIR))}/index.js`,
    name: 'segmenter',
    declaration: 'const segmenter = new Intl.Segmenter();',
  },
  {
    file: `${packageDir('slice-ansi', INK_DIR)}/tokenize-ansi.js`,
    name: 'GRAPHEME_SEGMENTER',
    declaration: "const GRAPHEME_SEGMENTER = new Intl.Segmenter(undefined, {granularity: 'grapheme'});",
  },
  {
    file: `${packageDir('@alcalzone/ansi-tokenize', INK_DIR)}/build/tokenize.js`,
    name: 'segmenter',
    declaration: 'const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });',
  },
];
export const GRAPHEME_SEGMENTER_FILES = GRAPHEME_SEGMENTERS.map((g) => g.file);

/** `source` (one of GRAPHEME_SEGMENTER_FILES) with graphemes.ts's segmenter; unchanged (and a warning) if the package changed. */
export function withLazyGraphemes(file, source) {
  const g = GRAPHEME_SEGMENTERS.find((x) => x.file === file);
  if (!g) return source;
  // Outside comments, the segmenter must be used only as NAME.segment(...), the one method the stand-in has
  // (what that returns iterates and answers containing() as Intl's does).
  const code = source.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  const uses = code.match(new RegExp(`\\b${g.name}\\b`, 'g'))?.length ?? 0;
  const calls = code.split(`${g.name}.segment(`).length - 1;
  if (!source.includes(g.declaration) || calls === 0 || uses !== calls + 1 || code.split('Intl.Segmenter').length !== 2) {
    console.warn(`build: ${relativeToRoot(file)} changed; it builds its Intl.Segmenter at load as before`);
    return source;
  }
  const graphemes = JSON.stringify(`${root}/src/text/graphemes.ts`);
  return `import { lazyGraphemeSegmenter as __lazyGraphemeSegmenter } from ${graphemes};\n${source.replace(g.declaration, () => `const ${g.name} = __lazyGraphemeSegmenter;`)}`;
}

function relativeToRoot(file) {
  return file.startsWith(root) ? file.slice(root.length) : file;
}

// Two Node modules Ink's dependencies load only to use later, ~2 ms before the first frame between them:
// signal-exit 3 loads node:assert for one check of its argument (the same check, with node:assert
// loaded only to throw its error when it fails), and terminal-size loads node:child_process for its
// fallbacks when stdout is not a terminal (loaded when the first fallback runs).
export const SIGNAL_EXIT = `${packageDir('signal-exit', INK_DIR)}/index.js`;
export const TERMINAL_SIZE = `${packageDir('terminal-size', INK_DIR)}/index.js`;
const ASSERT_REQUIRE = "var assert = require('assert')";
const ASSERT_USE = "assert.equal(typeof cb, 'function', 'a callback must be provided for exit handler')";
const EXEC_IMPORT = "import {execFileSync} from 'node:child_process';";

/** signal-exit loading node:assert when its check fails; unchanged (and a warning) if it changed. */
export function signalExitLazyAssert(source) {
  if (!source.includes(ASSERT_REQUIRE) || source.split('assert').length !== 4 || !source.includes(ASSERT_USE)) {
    console.warn('build: signal-exit changed; it loads node:assert at once as before');
    return source;
  }
  return source.replace(ASSERT_REQUIRE, () => "var assert = { equal: function (a, b, m) { if (a != b) require('assert').equal(a, b, m) } }");
}

/** terminal-size loading node:child_process on its first fallback; unchanged (and a warning) if it changed. */
export function terminalSizeLazyExec(source) {
  if (!source.includes(EXEC_IMPORT) || source.split('execFileSync').length !== 3) {
    console.warn('build: terminal-size changed; it loads node:child_process at once as before');
    return source;
  }
  return source.replace(
    EXEC_IMPORT,
    () => `import {createRequire as __createRequire} from 'node:module';
const execFileSync = (...args) => __createRequire(import.meta.url)('node:child_process').execFileSync(...args);`,
  );
}

export const lazyBuiltinsPlugin = {
  name: 'lazy-builtins',
  setup(b) {
    b.onLoad({ filter: /[\\/]signal-exit[\\/]index\.js$/ }, async (args) =>
      args.path === SIGNAL_EXIT ? { contents: signalExitLazyAssert(await readFile(args.path, 'utf8')), loader: 'js' } : undefined,
    );
    b.onLoad({ filter: /[\\/]terminal-size[\\/]index\.js$/ }, async (args) =>
      args.path === TERMINAL_SIZE ? { contents: terminalSizeLazyExec(await readFile(args.path, 'utf8')), loader: 'js' } : undefined,
    );
  },
};

const inkOutputPlugin = {
  name: 'ink-caches',
  setup(b) {
    b.onLoad({ filter: INK_OUTPUT }, async (args) => ({ contents: inkOutputWithRowCache(await readFile(args.path, 'utf8')), loader: 'js' }));
    b.onLoad({ filter: INK_RENDER_NODE }, async (args) => ({ contents: inkRenderWithWidthMemo(await readFile(args.path, 'utf8')), loader: 'js' }));
  },
};

/** The packages of GRAPHEME_SEGMENTER_FILES but Ink's string-width (stringWidthPlugin changes that one). */
export const graphemesPlugin = {
  name: 'lazy-grapheme-segmenters',
  setup(b) {
    const files = GRAPHEME_SEGMENTER_FILES.filter((f) => f !== STRING_WIDTH);
    b.onLoad({ filter: /[\\/](string-width[\\/]index|tokenize-ansi|tokenize)\.js$/ }, async (args) =>
      files.includes(args.path) ? { contents: withLazyGraphemes(args.path, await readFile(args.path, 'utf8')), loader: 'js' } : undefined,
    );
  },
};

const yogaPlugin = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: YOGA_LOADER }, async (args) => ({ contents: yogaDecodeWithBuffer(yogaWithoutFetch(await readFile(args.path, 'utf8'))), loader: 'js' }));
  },
};

/** esbuild options writing to `outdir` (relative to the repo root). */
export function buildOptions(outdir = 'dist') {
  return {
    absWorkingDir: root,
    entryPoints: ['src/cli.tsx'],
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
    plugins: [yogaPlugin, inkOutputPlugin, stringWidthPlugin, graphemesPlugin, lazyBuiltinsPlugin],
    logLevel: 'warning',
  };
}
