/**
 * One list of scripting command names, shared by the entry (which dispatches on it before loading any
 * scripting code) and runScript, so the two cannot drift. It must stay import-free to stay cheap.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isScriptCommand, SCRIPT_COMMANDS } from '../../src/scripting/commands-list';
import { makeRunner } from './run';

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the scripting command list', () => {
  it('imports nothing, and the entry takes it from there instead of keeping a copy', () => {
    expect(source('src/scripting/commands-list.ts')).not.toMatch(/^\s*import\b/m);
    const cli = source('src/cli.tsx');
    expect(cli).toMatch(/from '\.\/scripting\/commands-list'/);
    expect(cli).not.toMatch(/\[\s*'new',/);
  });

  it('every name on it has help in runScript; other names are not on it', async () => {
    const r = makeRunner();
    try {
      for (const name of SCRIPT_COMMANDS) {
        const res = await r.run(name, ['--help']);
        expect(res.code, name).toBe(0);
        expect(res.stdout).toMatch(new RegExp(`^Usage: tempmail-tui ${name}\\b`));
      }
    } finally {
      r.cleanup();
    }
    expect(SCRIPT_COMMANDS.every(isScriptCommand)).toBe(true);
    for (const other of ['serve', '--help', 'NEW', '', 'toString']) expect(isScriptCommand(other), other).toBe(false);
  });
});
