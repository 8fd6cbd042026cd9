/**
 * The html-to-text set-up behind html-text.ts: which elements are dropped, how tables and links are
 * laid out, and the link table that turns anchors into numbered references. Kept apart from the
 * slicing and wrapping so each file says one thing.
 */

import { compile, type DomNode, type FormatCallback } from 'html-to-text';
import { safeLine, safeText } from '../text/safe-text';
import { tableFormatter } from './html-table';

/** A link kept from the message: `n` is the number shown as "[n]" in the text. */
export interface Link {
  n: number;
  url: string;
  text: string;
}

// A link longer than this is no link a person can use; it is dropped rather than cut into a broken one.
export const MAX_URL_LENGTH = 8192;
export const MAX_LINK_TEXT = 200;

/** Collects the links of one render, numbered in order of first appearance. */
export class LinkTable {
  readonly links: Link[] = [];
  private readonly byUrl = new Map<string, Link>();

  /** The number for `url`, reusing the first one when a message repeats a link (logo and button). */
  number(url: string, text: string): number {
    const known = this.byUrl.get(url);
    if (known) {
      if (!known.text && text) known.text = text;
      return known.n;
    }
    const link = { n: this.links.length + 1, url, text };
    this.links.push(link);
    this.byUrl.set(url, link);
    return link.n;
  }

  /** The links as terminal-safe copies, for the caller to keep. */
  safeLinks(): Link[] {
    return this.links.map((l) => ({
      n: l.n,
      url: safeLine(l.url, MAX_URL_LENGTH),
      text: safeLine(l.text, MAX_LINK_TEXT),
    }));
  }
}

/**
 * The href as a safe, openable URL, or null. Only http(s) and mailto survive: javascript:, data:,
 * file:, relative and fragment links are not something to open from a terminal.
 */
export function acceptUrl(href: unknown): string | null {
  if (typeof href !== 'string') return null;
  // Browsers drop tabs and line breaks inside URLs; a removed control must not hide a scheme either.
  const url = safeText(href)
    .replace(/[\t\n\r]/g, '')
    .trim()
    .replace(/ /g, '%20');
  if (url.length === 0 || url.length > MAX_URL_LENGTH) return null;
  if (/^https?:\/\/[^/?#\s]/i.test(url) || /^mailto:\S/i.test(url)) return url;
  return null;
}

function imageAlt(elem: DomNode): string {
  for (const child of elem.children ?? []) {
    if (child.name === 'img' && typeof child.attribs?.alt === 'string') return child.attribs.alt as string;
    const inner = imageAlt(child);
    if (inner) return inner;
  }
  return '';
}

// "text [n]" inline; the URL goes to the list at the end. The anchor's words are captured with a word
// transform, as html-to-text's own anchor formatter does. The LinkTable comes in as per-call metadata
// so one compiled converter serves every message.
const formatAnchor: FormatCallback = (elem, walk, builder) => {
  const table = (builder as unknown as { metadata?: unknown }).metadata;
  const url = acceptUrl(elem.attribs?.href);
  if (!url || !(table instanceof LinkTable)) {
    walk(elem.children, builder);
    return;
  }
  const words: string[] = [];
  builder.pushWordTransform((word) => {
    words.push(word);
    return word;
  });
  walk(elem.children, builder);
  builder.popWordTransform();
  let text = safeLine(words.join(' '), MAX_LINK_TEXT);
  // An image link (logo, banner button) has no text: its alt text says what it is.
  const alt = text ? '' : safeLine(imageAlt(elem), MAX_LINK_TEXT).trim();
  if (alt) text = alt;
  const n = table.number(url, text);
  builder.addInline(alt ? `${alt} [${n}]` : text ? ` [${n}]` : `[${n}]`, { noWordTransform: true });
};

// Layout tables hold most of an HTML mail: each row its own line, cells apart by a space, so that
// "Code" and "123456" in two cells do not run together as "Code123456". (Simple data tables keep
// their columns: html-table.ts.)
const formatCell: FormatCallback = (elem, walk, builder) => {
  builder.addInline(' ');
  walk(elem.children, builder);
  builder.addInline(' ');
};

const SKIPPED = ['img', 'script', 'style', 'head', 'noscript', 'template', 'svg', 'iframe', 'object'];
const SKIPPED_SET = new Set(SKIPPED);

/** True for an element whose content the converter does not show (the selectors below say the same). */
export function hidesContent(name: string, attribs: Record<string, string>): boolean {
  if (SKIPPED_SET.has(name) || 'hidden' in attribs) return true;
  const style = attribs.style?.toLowerCase() ?? '';
  return style.includes('display:none') || style.includes('display: none');
}

/** Converts an HTML fragment to text, its links numbered into `table`. */
export type Converter = (html: string, table: LinkTable) => string;
const converters = new Map<number, Converter>();

/** One compiled converter per width: compiling the selectors costs more than converting a small mail. */
export function converterFor(width: number): Converter {
  const cached = converters.get(width);
  if (cached) return cached;
  if (converters.size > 8) converters.clear(); // resizes are few; never let this grow unbounded
  const convert = compile({
    // Paragraphs stay whole here and are wrapped by wrapText, which counts columns and breaks CJK text
    // between characters: html-to-text counts UTF-16 units and breaks only at spaces. (That also makes
    // the text the same at every width but for the <hr> line below: a resize re-wraps the same text.)
    wordwrap: false,
    // The caller slices the input; html-to-text would otherwise warn on stderr, over the UI.
    limits: { maxInputLength: Number.MAX_SAFE_INTEGER },
    formatters: { numberedAnchor: formatAnchor, cell: formatCell, mailTable: tableFormatter(width) },
    selectors: [
      { selector: 'a', format: 'numberedAnchor' },
      { selector: 'table', format: 'mailTable' },
      { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
      { selector: 'td', format: 'cell' },
      { selector: 'hr', options: { length: width } },
      { selector: 'th', format: 'cell' },
      ...SKIPPED.map((selector) => ({ selector, format: 'skip' })),
      // Hidden preheaders and tracking blocks: not what a mail client shows.
      { selector: '[style*="display:none"i]', format: 'skip' },
      { selector: '[style*="display: none"i]', format: 'skip' },
      { selector: '[hidden]', format: 'skip' },
      // Headings keep their case: shouting adds nothing in a terminal and would change codes.
      ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  }) as (html: string, metadata?: unknown) => string;
  const converter: Converter = (html, table) => convert(html, table);
  converters.set(width, converter);
  return converter;
}
