/**
 * The raw-byte check of the pty level of the safety matrix: what the app wrote to its terminal, with
 * colours off (NO_COLOR) and the bell off, may hold only the control sequences the app draws with
 * itself (test/e2e/terminal-bytes.ts: Ink's cursor moves, erase line, clear screen, cursor show/hide,
 * alternate screen, bold/dim/inverse, plus whatever it wrote before any hostile mail arrived), its own
 * OSC 52 on the copy key, and CR only before LF. Then no payload sequence whole (some are made of tokens
 * the app uses too, e.g. ESC[3A ESC[2K), and between the two markers of a payload on one line nothing
 * but text.
 */
import { CLEAR_TERMINAL, controlTokens, countOf, showToken, unexpectedTokens } from '../../e2e/terminal-bytes';
import { PAYLOADS } from '../payloads';

/** Payloads that hold a control of any kind (all but the long plain-text ones). */
export const CONTROL_PAYLOADS = PAYLOADS.filter((p) => controlTokens(p.seq).length > 0);

const around = (text: string, i: number) => JSON.stringify(text.slice(Math.max(0, i - 40), i + 40));

/**
 * Everything in `output` that the app does not write itself. `baseline`: the tokens it wrote before
 * any hostile mail was there; `ownOsc`: its own OSC 52 strings (from the copy key), exactly.
 */
export function foreignBytes(output: string, baseline: ReadonlySet<string>, ownOsc: readonly string[] = []): string[] {
  let text = output;
  for (const osc of ownOsc) text = text.replaceAll(osc, '');
  const problems: string[] = [];
  for (const [token, n] of unexpectedTokens(text, new Set(baseline))) {
    problems.push(
      `control sequence the app does not write: ${showToken(token)} x${n}, first at ${around(text, text.indexOf(token))}`,
    );
  }
  // The pty turns the app's newlines into CR LF; a CR on its own moves the cursor back over a line.
  const bare = /\r(?!\n)/.exec(text);
  if (bare) problems.push(`bare CR at ${around(text, bare.index)}`);
  const plain = text.replaceAll(CLEAR_TERMINAL, '');
  for (const p of CONTROL_PAYLOADS) {
    const n = p.seq === '\x1b' ? 0 : countOf(plain, p.seq);
    if (n > 0) problems.push(`#${p.id} ${p.name}: the payload written whole x${n}`);
  }
  return problems;
}

/**
 * The marked regions: from a left marker "Q07sa " to its right marker ("07sz", whose Q an unterminated
 * CSI may take) on the same line, however long, the app wrote only text. Returns how many were checked.
 */
export function markedRegions(output: string, problems: string[]): number {
  let regions = 0;
  for (const m of output.matchAll(/Q(\d\d)([a-z])a /g)) {
    const start = m.index;
    const lineEnd = output.indexOf('\n', start);
    const line = output.slice(start, lineEnd < 0 ? undefined : lineEnd);
    const z = line.indexOf(`${m[1]}${m[2]}z`);
    if (z < 0) continue;
    regions++;
    const between = line.slice(0, z);
    if (/[\x00-\x1f\x7f-\x9f]/.test(between))
      problems.push(`#${m[1]} ${m[2]}: control inside the marked text ${JSON.stringify(between.slice(0, 200))}`);
  }
  return regions;
}
