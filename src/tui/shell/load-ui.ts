/**
 * Loads the UI's code (Ink, React, our screens) with no global fetch in sight. yoga-layout, Ink's layout
 * engine, carries its WebAssembly inline as a data: URL, and its loader fetch()es that URL whenever a
 * global fetch exists: in Node that loads undici, and with it node:tls, node:crypto and node:http2, all
 * before the first frame (seen with --cpu-prof: undici's loader under yoga's, during run-app's import).
 * Without fetch, the loader decodes the URL itself, as it does in any runtime that has none. fetch is
 * put back as it was once the code has loaded; nothing of a dependency is changed. The gain is measured in
 * docs/performance.md; test/tui/shell/load-ui.test.ts checks that undici stays unloaded and fetch comes back.
 */

/** Runs `load` (an import of the UI's code) without a global fetch, and puts fetch back after. */
export async function loadWithoutFetch<T>(load: () => Promise<T>): Promise<T> {
  // The property, not its value: Node's fetch loads undici when called, not when read, but a getter
  // (a polyfill's, a test's) would run if read.
  const fetchProperty = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!fetchProperty?.configurable) return load();
  Reflect.deleteProperty(globalThis, 'fetch');
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', fetchProperty);
  }
}
