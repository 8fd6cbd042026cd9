/**
 * The heap of a long-running process held near what it keeps alive (src/platform/young-generation.ts):
 * a child Node allocates the way serve does under steady mail (short-lived objects with a share that
 * survives a scavenge or two) and reports its new space. Without the hold, V8 doubles it to its maximum.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const MODULE = resolve(import.meta.dirname, '../../src/platform/young-generation.ts');

function newSpaceAfterChurn(hold: boolean): number {
  const script = `
    import { holdHeapNearLive, youngGenerationBytes } from ${JSON.stringify(MODULE)};
    if (${hold}) await holdHeapNearLive(4 * 1024 * 1024, 25);
    let kept = [];
    for (let i = 0; i < 3e6; i++) { kept.push({ a: i, b: 'x' + i }); if (kept.length > 200000) kept = []; }
    await new Promise((r) => setTimeout(r, 0));
    process.stdout.write(String(await youngGenerationBytes()));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(out);
}

describe('holdHeapNearLive', () => {
  it('keeps the young generation at the first size that reaches the ceiling, where V8 alone grows it to its maximum', () => {
    const free = newSpaceAfterChurn(false);
    const held = newSpaceAfterChurn(true);
    // V8 grows by doublings: the first size >= 4 MB is below 8.5 MB (two semi-spaces and their pages).
    expect(held).toBeLessThan(8.5 * 1024 * 1024);
    expect(free).toBeGreaterThan(4 * held);
  }, 60_000);
});
