/**
 * Terminal safety matrix, pseudo-terminal level (issue 5), one shard per test file: the built app in a
 * real pty, with colours and the bell off, against a `serve` child that received the shard's mails over
 * SMTP, or against the JSON-escaping service (spec-service.ts) holding the same payloads as `\u` escapes.
 * Each message is opened and paged through; each of its payload x field x path cases must show its
 * marker words, and the screen no unsafe character. Then every byte the app wrote is checked
 * (pty-bytes.ts), and the copy key's OSC 52 must be the one OSC written. The shards together must cover
 * the whole matrix of the definitions.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInbox, isViewer, neutralEnv, pickFirstDomain, startE2E } from '../../e2e/flow';
import { KEYS, spawnApp, type PtyApp } from '../../e2e/pty-harness';
import { tokenSet } from '../../e2e/terminal-bytes';
import { startSpecService, type SpecService } from '../../faults/spec-service';
import { firstUnsafe, hostileValue } from '../payloads';
import { CONTROL_PAYLOADS, foreignBytes, markedRegions } from './pty-bytes';
import { toEml, toWire } from './pty-messages';
import { caseKey, casesOf, fullMatrix, perPath, SHARDS, shardSpecs, type Shard, type Spec } from './pty-plan';
import { sendRawBatch } from '../send';

const COLS = 260;
const ROWS = 60;
// Colours off: then not even ESC[31m can be the app's own. Bell off: a BEL can only be a leak.
const APP_ARGS = ['--no-bell', '--poll-interval', '1'];
const APP_ENV = { NO_COLOR: '1' };
const JSON_TOKEN = 'tok_pty_safety_json';

interface Run {
  app: PtyApp;
  address: string;
  /** Raw output before any hostile mail: what the app draws with by itself. */
  baselineEnd: number;
  /** The JSON service, for the json shard. */
  spec?: SpecService;
  close(): Promise<void>;
}

async function startMime(specs: Spec[]): Promise<Run> {
  const e2e = await startE2E({ cols: COLS, rows: ROWS, args: APP_ARGS, env: APP_ENV });
  const address = await pickFirstDomain(e2e.app);
  await e2e.app.settle();
  const baselineEnd = e2e.app.mark();
  await sendRawBatch(
    e2e.serve,
    address,
    specs.map((s) => toEml(s, address)),
  );
  return { app: e2e.app, address, baselineEnd, close: e2e.close };
}

async function startJson(specs: Spec[]): Promise<Run> {
  const spec = await startSpecService({ escapeJson: true, token: JSON_TOKEN });
  const home = await mkdtemp(join(tmpdir(), 'tempmail-pty-json-home-'));
  const app = spawnApp({
    args: ['--base-url', spec.baseUrl, ...APP_ARGS],
    env: { ...neutralEnv(), TEMPMAIL_TUI_HOME: home, ...APP_ENV },
    cols: COLS,
    rows: ROWS,
  });
  const close = async () => {
    app.kill();
    await spec.close();
    await rm(home, { recursive: true, force: true });
  };
  try {
    const address = await pickFirstDomain(app);
    await app.settle();
    const baselineEnd = app.mark();
    for (const s of specs) spec.add(JSON_TOKEN, toWire(s));
    return { app, address, baselineEnd, spec, close };
  } catch (error) {
    await close();
    throw error;
  }
}

const position = (screen: string) => /lines (\d+)-(\d+) of (\d+)/.exec(screen);

/**
 * The viewer's screen once a whole frame is on it. Ink redraws by erasing every row and writing the
 * frame top to bottom, and the app redraws each second (the poll's "last checked"); a loaded machine
 * can pause that write for longer than settle's quiet time, and a screen read then lacks its lower rows.
 * The footer is written last: without it, the frame is not finished.
 */
async function wholeViewer(app: PtyApp): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await app.settle();
    const text = app.screenText();
    if (isViewer(text) && position(text) !== null) return text;
    if (Date.now() > deadline)
      throw new Error(`the viewer never showed a whole frame; screen was:\n${text.slice(0, 3000)}`);
  }
}

/** Opens the selected message, pages to its end, and returns every screen seen on the way. */
async function readSelected(app: PtyApp): Promise<string> {
  const whole = () => wholeViewer(app);
  await app.press(KEYS.ENTER, (s) => isViewer(s) && position(s) !== null);
  let screen = await whole();
  const pages = [screen];
  for (let guard = 0; guard < 50; guard++) {
    const pos = position(screen)!;
    if (pos[2] === pos[3]) break;
    const before = pos[0];
    await app.press(' ', (s) => position(s) !== null && position(s)![0] !== before);
    screen = await whole();
    pages.push(screen);
  }
  await app.press(KEYS.ESC, isInbox);
  return pages.join('\n');
}

export function ptyMatrixSuite(shard: Shard): void {
  const specs = shardSpecs(shard);
  let run: Run;
  const checked = new Set<string>();

  beforeAll(async () => {
    run = await (shard === 'json' ? startJson(specs) : startMime(specs));
  }, 60_000);
  afterAll(() => run?.close());

  describe(`terminal safety in a real pty (${shard}): the built app, every payload x field x path of the shard`, () => {
    it('the shards together cover every payload x field x path of the definitions', () => {
      const full = fullMatrix();
      const union = new Set(
        (Object.keys(SHARDS) as Shard[]).flatMap((s) => shardSpecs(s).flatMap(casesOf).map(caseKey)),
      );
      expect([...full].filter((k) => !union.has(k))).toEqual([]);
      expect(union.size).toBe(full.size);
      // Every shard has its test file, so none of them can drop out unnoticed.
      for (const file of Object.values(SHARDS)) expect(existsSync(new URL(file, import.meta.url)), file).toBe(true);
      console.log(
        `pty safety matrix: ${full.size} payload x field x path cases over ${Object.keys(SHARDS).length} shards (${perPath(full)})`,
      );
    });

    it('shows every case of every hostile message with its marker words, and no unsafe character', async () => {
      const { app } = run;
      const started = Date.now();
      await app.waitForScreen((s) => isInbox(s) && new RegExp(`\\b${specs.length} messages\\b`).test(s), 30_000);
      await app.press('g');
      const seen = new Map<string, string>();
      for (let i = 0; i < specs.length; i++) {
        if (i > 0) await app.press('j');
        const text = await readSelected(app);
        const tag = /^Subject: +(\S+)/m.exec(text)?.[1] ?? '';
        expect(
          specs.some((s) => s.tag === tag) && !seen.has(tag),
          `a new message, subject tag ${tag}:\n${text.slice(0, 2000)}`,
        ).toBe(true);
        seen.set(tag, text);
      }
      const missing: string[] = [];
      for (const spec of specs) {
        const text = seen.get(spec.tag)!;
        const bad = firstUnsafe(text);
        if (bad) missing.push(`${spec.tag}: unsafe character on screen: ${bad}`);
        for (const c of casesOf(spec)) {
          const absent = c.words.filter((w) => !text.includes(w));
          for (const w of absent) missing.push(`${spec.tag} ${caseKey(c)} ${c.payload.name}: ${w} not on screen`);
          if (absent.length === 0 && !bad) checked.add(caseKey(c));
        }
      }
      expect(missing, missing.slice(0, 30).join('\n')).toEqual([]);
      const planned = new Set(specs.flatMap(casesOf).map(caseKey));
      expect(checked).toEqual(planned);
      console.log(
        `pty safety (${shard}): ${specs.length} messages read in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
          `${checked.size} payload x field x path cases on screen (${perPath(checked)})`,
      );
    }, 180_000);

    it('wrote only its own control sequences: no payload sequence, C1, bidi, stray C0, DEL or bare CR', () => {
      const raw = run.app.raw();
      const text = raw.toString('utf8');
      // Valid UTF-8 throughout: no lone 8-bit C1 byte either.
      expect(Buffer.from(text, 'utf8').equals(raw)).toBe(true);
      const baseline = tokenSet(raw.subarray(0, run.baselineEnd).toString('utf8'));
      const problems = foreignBytes(text, baseline);
      const regions = markedRegions(text, problems);
      expect(problems, problems.slice(0, 20).join('\n')).toEqual([]);
      // Every frame repeats its marked text: far more regions than cases, or the search found nothing.
      expect(regions).toBeGreaterThan(checked.size);
      console.log(
        `pty safety raw bytes (${shard}): ${raw.length} bytes checked, ${regions} marked regions clean, baseline of ${baseline.size} tokens`,
      );
    });

    it('the byte check is not vacuous: each control payload written raw into this output is caught', () => {
      const text = run.app.raw().toString('utf8');
      const baseline = tokenSet(run.app.raw().subarray(0, run.baselineEnd).toString('utf8'));
      // The last 200 KB (cut at a line end), as the app wrote it: clean, and then with a payload in it.
      const tail = text.slice(text.indexOf('\n', Math.max(0, text.length - 200_000)) + 1);
      expect(foreignBytes(tail, baseline)).toEqual([]);
      const mid = tail.indexOf('\n', tail.length / 2) + 1;
      const missed = CONTROL_PAYLOADS.filter(
        (p) => foreignBytes(tail.slice(0, mid) + hostileValue(p, 'textBody') + tail.slice(mid), baseline).length === 0,
      );
      expect(missed.map((p) => p.name)).toEqual([]);
    });

    it("the app's own OSC 52 on the copy key is the only OSC it writes", async () => {
      const { app, address } = run;
      const from = app.mark();
      await app.press('c', /Copied|copied|Sent|clipboard/);
      await app.settle(300);
      const after = app.rawSince(from).toString('utf8');
      const osc = `\x1b]52;c;${Buffer.from(address).toString('base64')}\x07`;
      expect([...after.matchAll(/\x1b\][\s\S]*?(?:\x07|\x1b\\)/g)].map((m) => m[0])).toEqual([osc]);
      const baseline = tokenSet(app.raw().subarray(0, run.baselineEnd).toString('utf8'));
      expect(foreignBytes(app.raw().toString('utf8'), baseline, [osc])).toEqual([]);
    });

    if (shard === 'json') {
      it('the JSON service really sent \\u escapes, not raw control bytes', async () => {
        const wire = await (await fetch(`${run.spec!.baseUrl}check-mail?token=${JSON_TOKEN}`)).text();
        for (const escaped of ['\\u001b', '\\u009b', '\\u202e']) expect(wire).toContain(escaped);
        expect(wire).not.toMatch(/[\x00-\x1f\x7f-\uffff]/);
      });
    }
  });
}
