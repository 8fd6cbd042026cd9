/**
 * The screen captures in README.md are what the built app draws, taken by the e2e harness
 * (scripts/capture-screens.ts), not typed by hand: a fresh capture must match them, clock times aside.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CAPTURE_NAMES, captureScreens, maskVolatile, README, readCapture, writeCaptures } from './capture';

const HOW = 'update with `npx tsx scripts/capture-screens.ts`';

describe('README screen captures', () => {
  it('match what the app draws now', async () => {
    const readme = readFileSync(README, 'utf8');
    const fresh = await captureScreens();
    for (const name of CAPTURE_NAMES) {
      const inReadme = readCapture(readme, name);
      expect(inReadme, `README.md needs <!-- capture:${name} --> markers`).toBeDefined();
      expect(maskVolatile(inReadme!), `README.md capture "${name}" is stale: ${HOW}`).toBe(maskVolatile(fresh[name]));
    }
  });

  it('writes only between the markers', () => {
    const readme = 'intro\n<!-- capture:inbox -->\nold\n<!-- /capture:inbox -->\nmiddle\n<!-- capture:viewer -->\n<!-- /capture:viewer -->\nend\n';
    const out = writeCaptures(readme, { inbox: 'INBOX 12:34', viewer: 'VIEWER' });
    expect(out).toBe(
      'intro\n<!-- capture:inbox -->\n```text\nINBOX 12:34\n```\n<!-- /capture:inbox -->\nmiddle\n' +
        '<!-- capture:viewer -->\n```text\nVIEWER\n```\n<!-- /capture:viewer -->\nend\n',
    );
    expect(readCapture(out, 'inbox')).toBe('INBOX 12:34');
    expect(writeCaptures(out, { inbox: 'INBOX 12:34', viewer: 'VIEWER' })).toBe(out);
    expect(maskVolatile('expires in 59:58 · 2026-11-22 00:34:33 · 7 s')).toBe('expires in ##:## · ####-##-## ##:##:## · 7 s');
  });
});
