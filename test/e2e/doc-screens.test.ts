/**
 * The screens in the documentation (docs/screens/*.svg and the text captures in README.md and docs/)
 * are what the built app draws, taken by the e2e harness in local mode (test/e2e/capture.ts), not drawn
 * by hand: a fresh capture must give the very same files, byte for byte.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '../../scripts/docs-gen/doc-files';
import { expectedFiles } from '../../scripts/docs-gen/doc-screens';
import { gridText } from '../../scripts/docs-gen/grid';
import { captureScreens } from './capture';

const HOW = 'update with `npx tsx scripts/capture-screens.ts`';

describe('the screens in the docs', () => {
  it('are what the built app draws now, in local mode at 100x30', async () => {
    const screens = await captureScreens();
    // The mode the README describes: the app's own local service, whose row names the SMTP target.
    expect(gridText(screens.inbox)).toContain(
      'Local service: send mail to jane.doe@tempmail.test via SMTP 127.0.0.1:2525',
    );
    expect(gridText(screens.picker)).toContain('Local service: mail is received via SMTP 127.0.0.1:2525');
    const files = expectedFiles(screens);
    expect([...files.keys()].map((p) => repoPath(p))).toEqual(
      expect.arrayContaining(['docs/screens/picker.svg', 'docs/screens/inbox.svg', 'docs/screens/viewer.svg']),
    );
    for (const [path, content] of files) {
      const committed = existsSync(path) ? readFileSync(path, 'utf8') : '(missing)';
      expect(committed, `${repoPath(path)} is stale: ${HOW}`).toBe(content);
    }
  });
});
