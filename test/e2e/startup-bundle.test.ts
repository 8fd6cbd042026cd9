/**
 * What the app loads before its first frame, read from esbuild's metafile of the shipped build options:
 * the static imports of the entry and of the chunks on the app's path (app-cli, app-service, run-app).
 * The message reader (html-to-text, its parser and entity tables, code and link detection), the server
 * and the HTTP client (got: the first frame's domains come over Node's own http) are loaded only when
 * needed; yoga's inline wasm is not fetched through undici.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { buildOptions, lazyBuiltinsPlugin, root, SIGNAL_EXIT, signalExitLazyAssert, STRING_WIDTH, stringWidthLazyEmoji, TERMINAL_SIZE, terminalSizeLazyExec, YOGA_LOADER, yogaDecodeWithBuffer, yogaWithoutFetch } from '../../scripts/build-config.mjs';

const APP_PATH = ['src/tui/shell/app-cli.ts', 'src/tui/shell/app-service.ts', 'src/tui/shell/run-app.tsx'];

/** Inputs of the outputs reachable by static imports from the outputs of `entries`. */
function loadedWith(meta: Metafile, entries: string[]): Set<string> {
  const outputs = Object.entries(meta.outputs);
  const starts = outputs.filter(([, o]) => o.entryPoint !== undefined && entries.includes(o.entryPoint)).map(([k]) => k);
  expect(starts).toHaveLength(entries.length);
  const seen = new Set<string>();
  const walk = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const i of meta.outputs[key]!.imports) if (i.kind === 'import-statement' && meta.outputs[i.path]) walk(i.path);
  };
  starts.forEach(walk);
  return new Set([...seen].flatMap((k) => Object.keys(meta.outputs[k]!.inputs)));
}

describe('start-up bundle', () => {
  let meta: Metafile;
  beforeAll(async () => {
    const result = await build({ ...buildOptions('dist-meta'), write: false, metafile: true, logLevel: 'silent' });
    meta = result.metafile!;
  }, 60_000);

  it('loads neither the message reader, the server nor the HTTP client before the first frame', () => {
    const inputs = [...loadedWith(meta, ['src/cli.tsx', ...APP_PATH])];
    expect(inputs.some((i) => i.includes('node_modules/ink/'))).toBe(true); // the walk found the UI
    expect(inputs).toContain('src/client/tempmail/quick-domains.ts'); // the first frame's domains
    const early = inputs.filter((i) =>
      /node_modules\/(html-to-text|htmlparser2|entities|selderee|parseley|got|http2-wrapper|cacheable-request|keyv)\/|src\/content\/|src\/server\//.test(i),
    );
    expect(early).toEqual([]);
  });

  it("bundles one copy of React's scheduler, the one React runs on", () => {
    // key-stdin.ts queues the next key on React's scheduler, behind React's own renders: on a second
    // copy it would queue on a scheduler React never runs, and keys typed together would race the
    // frames again. (string-width, which text-width.ts shares with Ink, is checked in test/text.)
    const copies = new Set(
      Object.keys(meta.inputs)
        .map((i) => /^(.*node_modules\/scheduler)\//.exec(i)?.[1])
        .filter((dir): dir is string => dir !== undefined),
    );
    expect([...copies]).toEqual(['node_modules/scheduler']);
  });

  it("takes yoga's own wasm path instead of fetch() (which loads undici)", () => {
    const loader = Object.keys(meta.inputs).find((i) => YOGA_LOADER.test(i));
    expect(loader).toBeDefined();
    const source = readFileSync(join(root as string, loader!), 'utf8');
    expect(yogaWithoutFetch(source)).not.toBe(source);
  });

  it("decodes yoga's inline wasm with Node's base64 decoder, not atob and a loop", () => {
    // The e2e tests draw every screen through the wasm decoded this way.
    const loader = Object.keys(meta.inputs).find((i) => YOGA_LOADER.test(i));
    const source = yogaWithoutFetch(readFileSync(join(root as string, loader!), 'utf8'));
    const changed = yogaDecodeWithBuffer(source);
    expect(changed).not.toBe(source);
    expect(changed).toContain('Buffer.from(a.slice(37),"base64")');
  });

  it("builds string-width's emoji regex when a possible emoji comes, not when the first frame loads", () => {
    // The copy of string-width in the first frame's chunks is the one the build changes (test/text checks
    // that it measures as before).
    const inputs = loadedWith(meta, ['src/cli.tsx', ...APP_PATH]);
    const copies = [...inputs].filter((i) => /node_modules\/(.*\/)?string-width\//.test(i));
    expect(copies).toContain(relative(root as string, STRING_WIDTH as string));
    const source = readFileSync(STRING_WIDTH as string, 'utf8');
    expect(stringWidthLazyEmoji(source)).not.toBe(source);
  });

  it('loads node:assert in signal-exit and node:child_process in terminal-size only when used, answering as published', async () => {
    for (const [file, patch] of [[SIGNAL_EXIT, signalExitLazyAssert], [TERMINAL_SIZE, terminalSizeLazyExec]] as const) {
      const source = readFileSync(file as string, 'utf8');
      expect((patch as (s: string) => string)(source), file as string).not.toBe(source);
    }
    const entry = `export { default as onExit } from ${JSON.stringify(SIGNAL_EXIT)}; export { default as terminalSize } from ${JSON.stringify(TERMINAL_SIZE)};`;
    const bundle = async (plugins: unknown[]) =>
      (await build({ stdin: { contents: entry, resolveDir: root as string, loader: 'js' }, bundle: true, format: 'esm', platform: 'node', write: false, plugins: plugins as never, logLevel: 'silent', banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } })).outputFiles[0]!.text;
    const dir = mkdtempSync(join(tmpdir(), 'lazy-builtins-'));
    try {
      writeFileSync(join(dir, 'shipped.mjs'), await bundle([lazyBuiltinsPlugin]));
      writeFileSync(join(dir, 'published.mjs'), await bundle([]));
      type Mod = { onExit: (cb: unknown) => () => void; terminalSize: () => { columns: number; rows: number } };
      const shipped = (await import(pathToFileURL(join(dir, 'shipped.mjs')).href)) as Mod;
      const published = (await import(pathToFileURL(join(dir, 'published.mjs')).href)) as Mod;
      const thrown = (f: () => unknown) => {
        try {
          f();
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message };
        }
        return undefined;
      };
      expect(thrown(() => shipped.onExit(123))).toEqual(thrown(() => published.onExit(123)));
      expect(thrown(() => shipped.onExit(123))?.name).toBe('AssertionError');
      const remove = shipped.onExit(() => undefined);
      expect(typeof remove).toBe('function');
      remove();
      expect(shipped.terminalSize()).toEqual(published.terminalSize());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
