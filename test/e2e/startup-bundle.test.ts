/**
 * What the app loads before its first frame, read from esbuild's metafile of the shipped build options:
 * the static imports of the entry and of the chunks on the app's path (app-cli, app-service, run-app).
 * The message reader (html-to-text, its parser and entity tables, code and link detection), the server
 * and the HTTP client (got: the first frame's domains come over Node's own http) are loaded only when
 * needed; yoga's inline wasm is not fetched through undici.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { buildOptions, root, STRING_WIDTH, stringWidthLazyEmoji, YOGA_LOADER, yogaDecodeWithBuffer, yogaWithoutFetch } from '../../scripts/build-config.mjs';

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
});
