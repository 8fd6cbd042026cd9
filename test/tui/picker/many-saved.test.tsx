/**
 * The picker with more saved addresses than fit (issue 14.17): the first nine choices keep their digit
 * wherever the list is scrolled, a line says how many more are above and below, moves stop at the ends
 * (no wraparound), and g/G go to the first and last choice as everywhere else. Real service, real
 * sessions.json in a temp dir.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSavedSessions } from '../../../src/state/saved-sessions';
import { textWidth } from '../../../src/text/text-width';
import { startTestService, type TestService } from '../../harness/service';
import { startApp } from '../harness';
import { KEY } from '../ui';

const COUNT = 34;
let svc: TestService;
let dir: string;
let emails: string[];

beforeAll(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'tui-many-'));
  const store = openSavedSessions({ dir });
  // Saved one after another: the newest is offered first.
  emails = Array.from({ length: COUNT }, (_, i) => `saved-${String(i + 1).padStart(2, '0')}@tempmail.test`);
  for (const [i, email] of emails.entries()) {
    store.save(
      { email, token: `token-${i}-0123456789abcdef`, expiresAt: new Date(Date.now() + 3_600_000 - i * 1000) },
      svc.baseUrl,
    );
  }
  emails.reverse();
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

// Every choice is listed (the service's domains come after the saved addresses, and may arrive later):
// the rows shown and the "more" counts add up to the saved ones and the two choices per domain.
const allListed = (frame: string) => {
  const shown = frame.split('\n').filter((line) => /^[> ] [1-9 ] (Resume|Random|Custom) /.test(line)).length;
  const more = [...frame.matchAll(/[↑↓] (\d+) more/g)].reduce((n, m) => n + Number(m[1]), 0);
  return shown + more === COUNT + 2 * svc.config.domains.length;
};

const highlighted = (frame: string) => frame.split('\n').find((line) => line.startsWith('> ')) ?? '';

describe(`the picker with ${COUNT} saved addresses at 80x24`, () => {
  it('numbers the first nine, says what is below, and G, g, j, k stop at the ends', async () => {
    const h = await startApp({ svc, props: { saved: { store: openSavedSessions({ dir }), serviceKey: svc.baseUrl } } });
    try {
      let frame = await h.screen.waitFor((f) => /↓ \d+ more below \(g\/G: first\/last\)/.test(f) && allListed(f));
      expect(frame.split('\n').every((line) => textWidth(line) <= 80)).toBe(true);
      // The digits stay on the first nine choices: 1 is the newest saved address.
      expect(frame).toMatch(new RegExp(`^> 1 Resume ${emails[0]}`, 'm'));
      expect(frame).toMatch(new RegExp(`^  9 Resume ${emails[8]}`, 'm'));
      expect(frame).not.toMatch(/more above/);
      // k at the top stays there: no wraparound to the bottom.
      await h.screen.press('k');
      await h.screen.press(KEY.ARROW_UP);
      expect(highlighted(h.screen.frame())).toContain(`1 Resume ${emails[0]}`);

      // G: the last choice (the service's choices come after the saved ones), the window at the end.
      await h.screen.press('G');
      frame = await h.screen.waitFor((f) => highlighted(f).includes('Custom name on inbox.test'));
      expect(frame).toMatch(/↑ \d+ more above \(g\/G: first\/last\)/);
      expect(frame).not.toMatch(/more below/);
      // j at the end stays there.
      await h.screen.press('j');
      await h.screen.press(KEY.ARROW_DOWN);
      expect(highlighted(h.screen.frame())).toContain('Custom name on inbox.test');

      // g: back to the first.
      await h.screen.press('g');
      frame = await h.screen.waitFor((f) => highlighted(f).includes(`Resume ${emails[0]}`));
      expect(frame).toMatch(/^ {2}2 Resume /m);

      // A page down and back, by the rows shown.
      await h.screen.press(KEY.PAGE_DOWN);
      frame = await h.screen.waitFor((f) => !highlighted(f).includes(`Resume ${emails[0]}`));
      expect(frame).toMatch(/↑ \d+ more above · ↓ \d+ more below/);
      await h.screen.press('b');
      await h.screen.waitFor((f) => highlighted(f).includes(`Resume ${emails[0]}`));
    } finally {
      await h.close();
    }
  });

  it('a digit picks the choice that shows it, wherever the list is scrolled', async () => {
    const h = await startApp({ svc, props: { saved: { store: openSavedSessions({ dir }), serviceKey: svc.baseUrl } } });
    try {
      await h.screen.waitFor((f) => /more below/.test(f) && allListed(f));
      await h.screen.press('G');
      await h.screen.waitFor(/more above/);
      await h.screen.press('3');
      // The third saved address (its token is unknown to the service: the header shows it all the same).
      const frame = await h.screen.waitFor(emails[2]!);
      expect(frame.split('\n')[0]).toContain(emails[2]);
    } finally {
      await h.close();
    }
  });
});
