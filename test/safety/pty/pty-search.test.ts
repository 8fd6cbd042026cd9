/**
 * The viewer's search over hostile mail, on the built program in a real pseudo-terminal (issue 16):
 * every control payload of the table in a text part and in an HTML part, sent over SMTP to `serve`,
 * searched with a pattern whose matches run across the place each payload was ("ta q": the end of its
 * left marker, the white space left where the payload was removed, the start of its right marker), in the
 * message and in its raw source (R), where the payload's bytes are in the very lines searched. Every byte
 * the app wrote meanwhile is checked as the safety matrix checks them (pty-bytes.ts): nothing but the
 * app's own drawing vocabulary (the marking is Ink's inverse and underline), no payload sequence whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInbox, isViewer, pickFirstDomain, startE2E, type E2E } from '../../e2e/flow';
import { KEYS } from '../../e2e/pty-harness';
import { tokenSet } from '../../e2e/terminal-bytes';
import { sendRawBatch } from '../send';
import { CONTROL_PAYLOADS, foreignBytes } from './pty-bytes';
import { toEml } from './pty-messages';
import type { Spec } from './pty-plan';

let e2e: E2E | undefined;
beforeAll(async () => {
  e2e = await startE2E({ cols: 200, rows: 60, args: ['--no-bell', '--poll-interval', '1'], env: { NO_COLOR: '1' } });
});
afterAll(async () => {
  await e2e?.close();
});

const spec = (tag: string, type: 'text' | 'html'): Spec => ({
  tag,
  headerPath: 'raw8',
  subject: [],
  names: [],
  emails: [],
  body: { type, path: type === 'text' ? 'raw8' : 'entHex', payloads: [...CONTROL_PAYLOADS] },
  files: [],
});

describe('search over hostile mail', () => {
  it('marks matches across removed payloads, in the message and its source, writing nothing but its own drawing', async () => {
    const { app, serve } = e2e!;
    const address = await pickFirstDomain(app);
    await app.settle();
    const baselineEnd = app.mark();
    await sendRawBatch(serve, address, [toEml(spec('SRCHT', 'text'), address), toEml(spec('SRCHH', 'html'), address)]);
    await app.waitForScreen((s) => isInbox(s) && s.includes('SRCHT') && s.includes('SRCHH'));

    // Sent in this order, so the HTML one is on top: G and g select each.
    for (const [tag, field, select] of [
      ['SRCHT', 't', 'G'],
      ['SRCHH', 'h', 'g'],
    ] as const) {
      await app.press(select, () => app.inverseRows().some((r) => app.screen()[r]?.includes(tag) ?? false));
      await app.press(KEYS.ENTER, (s) => isViewer(s) && s.includes(`${tag} ${field === 't' ? 'text' : 'html'}`));
      await app.press('/', /^\/search in the message/m);
      for (const key of `${field}a q`) await app.press(key);
      const typed = await app.waitForScreen(new RegExp(`^/${field}a q +1/(\\d+)$`, 'm'));
      const count = Number(new RegExp(`^/${field}a q +1/(\\d+)$`, 'm').exec(typed)![1]);
      // Most payloads leave nothing (or white space) between the markers: a match across each of those.
      expect(count).toBeGreaterThan(CONTROL_PAYLOADS.length / 2);
      await app.press(KEYS.ENTER, `"${field}a q" 1/${count}`);
      for (let i = 2; i <= 4; i++) await app.press('n', `"${field}a q" ${i}/${count}`);
      // The raw source holds the payloads' bytes themselves: searched too, shown safe.
      await app.press('R', /── (source|fields) · lines/);
      await app.press('n');
      await app.press('G');
      await app.press(KEYS.ESC, (s) => /^j\/k move/m.test(s));
      await app.press('R', /── lines/);
      await app.press('q', (s) => isInbox(s));
    }

    const out = app.rawSince(baselineEnd).toString('utf8');
    const baseline = tokenSet(app.raw().subarray(0, baselineEnd).toString('utf8'));
    expect(foreignBytes(out, baseline)).toEqual([]);
    // The marking was drawn: inverse for the current match, underline for the others.
    expect(out).toContain('\x1b[7m');
    expect(out).toContain('\x1b[4m');
  }, 120_000);
});
