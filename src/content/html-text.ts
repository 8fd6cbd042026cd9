/**
 * Message bodies as terminal text: HTML through html-to-text (wrapped, scripts, styles and images
 * dropped, links as numbered references listed at the end), else the plain-text part wrapped to the
 * same width. Everything that leaves this module has passed the terminal-safe boundary again, because
 * entity decoding (&#27; &#x9b; ...) can produce the very controls the client already removed.
 *
 * Speed (`npm run bench -- --only html`): html-to-text needs ~100-200 ms for 2 MB of newsletter HTML, many frames. So
 * the work is cut into slices of ~32 KB (a few ms each) at block boundaries. `renderBody` runs the
 * slices synchronously up to `maxBytes` (256 KB, ~20 ms) and says in the text that it stopped there;
 * `renderBodyAsync` runs all of them, yielding to the event loop between slices, so keys are handled
 * while a big message renders (its longest block: docs/performance.md), and hands over the beginning as soon as
 * there is some, so the top of the message shows long before its end is converted.
 */

import { acceptUrl, converterFor, LinkTable, type Link } from './html-convert';
import { flattenDeep } from './html-depth';
import { safeBlock, safeLine } from '../text/safe-text';
import { wrapText } from '../text/text-wrap';

export { acceptUrl, type Link } from './html-convert';

/** A body ready for the viewer: wrapped, terminal-safe text and its numbered links. */
export interface RenderedBody {
  text: string;
  links: Link[];
  /** Set when `renderBody` stopped at `maxBytes`: how much of the body (UTF-16 units) is shown. */
  truncated?: { shownBytes: number; totalBytes: number };
  /** Set on renderBodyAsync's early look: the beginning, while the rest is still being converted. */
  partial?: true;
}

/** The line a partial body ends with. */
export const PARTIAL_NOTE = '[the rest of this message is still being prepared…]';

/** The two body parts as the client delivers them. */
export interface BodyInput {
  bodyHtml: string | null;
  bodyText: string | null;
}

export interface RenderOptions {
  /** Render at most this much of the body synchronously (UTF-16 units). Default 256 KB. */
  maxBytes?: number;
  /** Appended to the truncation note, e.g. "press L to load all". */
  loadAllHint?: string;
}

export const DEFAULT_MAX_BYTES = 256 * 1024;
/** Size of one slice: a few ms of work even on a slow, busy machine. */
export const SLICE_BYTES = 32 * 1024;

/** A render in progress: the source, how far it got, and what it produced. */
interface Job {
  html: boolean;
  source: string;
  pos: number;
  cols: number;
  table: LinkTable;
  parts: string[];
}

function columns(width: number): number {
  return Number.isFinite(width) ? Math.max(10, Math.min(1000, Math.floor(width))) : 80;
}

function startJob(input: BodyInput, width: number): Job {
  const html = typeof input.bodyHtml === 'string' && input.bodyHtml.trim().length > 0;
  const source = html ? (input.bodyHtml as string) : typeof input.bodyText === 'string' ? input.bodyText : '';
  return { html, source, pos: 0, cols: columns(width), table: new LinkTable(), parts: [] };
}

// Slices of HTML end just after a closing block tag, so each is a run of whole paragraphs, rows or
// cells and converts on its own as it would in the whole document (what is still open at the cut is
// closed by the parser; the stray closing tags at the start of the next slice are ignored).
const BLOCK_END = /<\/(?:p|div|td|tr|table|li|ul|ol|h[1-6]|blockquote|section|article)\s*>|<br\s*\/?>/gi;

/** Where the slice starting at `from` ends, never past `limit`. */
function sliceEnd(job: Job, from: number, limit: number): number {
  if (limit - from <= SLICE_BYTES * 1.5) return limit;
  const target = from + SLICE_BYTES;
  if (!job.html) {
    const nl = job.source.indexOf('\n', target);
    return nl >= 0 && nl < target + SLICE_BYTES ? nl + 1 : target;
  }
  BLOCK_END.lastIndex = target;
  const m = BLOCK_END.exec(job.source);
  if (m && m.index + m[0].length <= Math.min(limit, target + SLICE_BYTES * 3)) return m.index + m[0].length;
  // No block end near: cut before a tag so no half tag shows as text.
  const lt = job.source.lastIndexOf('<', target);
  return lt > from + SLICE_BYTES / 2 ? lt : target;
}

const URL_IN_TEXT = /\b(?:https?:\/\/|mailto:)[^\s<>"'()[\]{}]+[^\s<>"'()[\]{}.,;:!?]/gi;

/** Converts the next slice, up to `limit`. Every slice's output is made safe and wrapped here. */
function step(job: Job, limit: number): void {
  const end = sliceEnd(job, job.pos, limit);
  const chunk = job.source.slice(job.pos, end);
  job.pos = end;
  let text: string;
  if (job.html) {
    text = safeBlock(converterFor(job.cols)(flattenDeep(chunk), job.table));
  } else {
    text = safeBlock(chunk);
    for (const m of text.matchAll(URL_IN_TEXT)) {
      const url = acceptUrl(m[0]);
      if (url) job.table.number(url, '');
    }
  }
  // HTML lists and quotes keep their indent and "> " on continuation lines, as html-to-text laid them out.
  job.parts.push(job.html ? wrapText(text, job.cols, { hang: true }) : wrapText(text.replace(/\n$/, ''), job.cols));
}

/** Joins the parts and adds the note and the link list, wrapped as well. */
function finish(job: Job, note: string): RenderedBody {
  // Slices of HTML each end in their own block breaks; plain text is joined as it was split.
  let text = job.html
    ? job.parts
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : job.parts.join('\n').trimEnd();
  let tail = note;
  if (job.table.links.length > 0) {
    tail += `${tail ? '\n\n' : ''}Links:\n${job.table.links.map((l) => `[${l.n}] ${l.url}`).join('\n')}`;
  }
  // A URL stays on the line of its number, cut at the width rather than moved below "[n]".
  if (tail) text += `${text ? '\n\n' : ''}${wrapText(tail, job.cols, { breakAtSpaces: false })}`;
  return { text, links: job.table.safeLinks() };
}

function kb(n: number): string {
  return `${Math.max(1, Math.round(n / 1024))} KB`;
}

// Where a synchronous render stops: at `max`, moved back to a line or tag start.
function capAt(job: Job, max: number): number {
  if (job.source.length <= max) return job.source.length;
  const mark = job.source.lastIndexOf(job.html ? '<' : '\n', max);
  return mark > max / 2 ? mark : max;
}

/**
 * Renders a body for a viewer `width` columns wide, synchronously: HTML via html-to-text, else the
 * text part. Past `maxBytes` it stops and ends the text with a visible note (renderBodyAsync does all).
 */
export function renderBody(input: BodyInput, width: number, options: RenderOptions = {}): RenderedBody {
  const job = startJob(input, width);
  const limit = capAt(job, Math.max(1024, options.maxBytes ?? DEFAULT_MAX_BYTES));
  while (job.pos < limit) step(job, limit);
  if (limit >= job.source.length) return textInstead(job, input, width, options) ?? finish(job, '');
  const hint = options.loadAllHint ? `, ${safeLine(options.loadAllHint, 80)}` : '';
  const note = `[message truncated at ${kb(limit)} of ${kb(job.source.length)}${hint}]`;
  return { ...finish(job, note), truncated: { shownBytes: limit, totalBytes: job.source.length } };
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Renders the whole body like renderBody, but yields to the event loop between slices (~32 KB), so a
 * 2 MB message never holds up a keypress. Rejects with the signal's reason when `signal` aborts.
 * `onPartial` gets the beginning as soon as a slice has given some text and more remains (once; the text
 * ends with PARTIAL_NOTE, `partial` set): the reader sees the top of a big message at once, not after
 * all of it is converted.
 */
export async function renderBodyAsync(
  input: BodyInput,
  width: number,
  signal?: AbortSignal,
  onPartial?: (partial: RenderedBody) => void,
): Promise<RenderedBody> {
  const job = startJob(input, width);
  const limit = job.source.length;
  let told = onPartial === undefined;
  while (job.pos < limit) {
    if (job.pos > 0) await yieldToEventLoop();
    signal?.throwIfAborted();
    step(job, limit);
    if (!told && job.pos < limit && job.parts.some((p) => p.trim() !== '')) {
      told = true;
      onPartial?.({ ...finishPartial(job), partial: true });
      // What the partial body starts (drawing it) goes before the next slice.
      await yieldToEventLoop();
    }
  }
  // The text part shown instead is rendered the same way: whole, in slices.
  if (prefersText(job, input))
    return renderBodyAsync({ bodyHtml: null, bodyText: input.bodyText }, width, signal, told ? undefined : onPartial);
  return finish(job, '');
}

/** The body so far, ending in PARTIAL_NOTE (the links listed so far go with it; their list comes at the end). */
function finishPartial(job: Job): RenderedBody {
  const text = job.html
    ? job.parts
        .join('\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
    : job.parts.join('\n').trimEnd();
  return { text: `${text}\n\n${PARTIAL_NOTE}`, links: job.table.safeLinks() };
}

// An HTML part that shows nothing (only images, only a hidden block) while a text part exists: the
// text part is what the sender meant to be read.
function prefersText(job: Job, input: BodyInput): boolean {
  if (!job.html || job.table.links.length > 0 || job.parts.some((p) => p.trim() !== '')) return false;
  return typeof input.bodyText === 'string' && input.bodyText.trim() !== '';
}

function textInstead(job: Job, input: BodyInput, width: number, options: RenderOptions): RenderedBody | null {
  return prefersText(job, input) ? renderBody({ bodyHtml: null, bodyText: input.bodyText }, width, options) : null;
}
