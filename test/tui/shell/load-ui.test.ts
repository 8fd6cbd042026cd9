/**
 * loadWithoutFetch hides the global fetch while the UI's code loads, so yoga's loader takes its own
 * path, and puts back the very property it found, also when the load fails. (That the built app then
 * draws its first frame without undici is checked in test/e2e/startup-probe.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { loadWithoutFetch } from '../../../src/tui/shell/load-ui';

describe('loadWithoutFetch', () => {
  it('runs the load with no global fetch, then puts the same property back', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    const seen = await loadWithoutFetch(async () => typeof (globalThis as { fetch?: unknown }).fetch);
    expect(seen).toBe('undefined');
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
  });

  it('puts it back when the load fails', async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
    await expect(loadWithoutFetch(() => Promise.reject(new Error('files replaced under us')))).rejects.toThrow(
      'files replaced',
    );
    expect(Object.getOwnPropertyDescriptor(globalThis, 'fetch')).toEqual(before);
  });

  it('yoga-layout loads and lays out without it', async () => {
    const { default: Yoga } = await loadWithoutFetch(() => import('yoga-layout'));
    const node = Yoga.Node.create();
    node.setWidth(12);
    node.calculateLayout(undefined, undefined);
    expect(node.getComputedWidth()).toBe(12);
    node.free();
  });
});
