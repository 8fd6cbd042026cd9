/**
 * HTML nested deeper than html-to-text can walk, flattened so that its text still shows.
 *
 * html-to-text converts by recursion, a few stack frames per element: from a fresh stack it overflows
 * at about 1,700 nested links, 2,200 nested divs or 660 nested tables (2,000 elements), and less when
 * it is called from deep inside a render. A message nested deeper (4,000 elements took the viewer and
 * `read` down) is rewritten here first, as browsers do past their own limit (Blink's is 512): elements
 * deeper than MAX_DEPTH lose their tags and keep their text. A block that loses its tags leaves a line
 * break, a table cell a space, so words do not run together; what would be hidden (scripts, styles,
 * `hidden` and `display:none` blocks) stays hidden, subtree and all; a link keeps its tag (one at a
 * time), so its number and URL survive.
 *
 * The parser (htmlparser2, the one html-to-text parses with) is a loop with its own stack, and it
 * reports the implied ends of elements, so the depth counted here is the depth html-to-text would see.
 * HTML within the limit (any real mail) is returned unchanged.
 */

import { Parser } from 'htmlparser2';
import { hidesContent } from './html-convert';

/** Elements kept nested at most this deep; html-to-text's own limit is about 7 times further. */
export const MAX_DEPTH = 256;
/**
 * Lists and quotes kept nested at most this deep. Each level indents its lines by 2-3 columns, so past
 * this a line would start off the screen (and 100,000 nested lists made a 13 MB text of spaces).
 */
export const MAX_INDENT = 16;

// Elements that end a line where they start and end (html-to-text's block formats).
const BLOCKS = new Set(
  (
    'address article aside blockquote center dd details dialog dir div dl dt fieldset figcaption figure footer ' +
    'form h1 h2 h3 h4 h5 h6 header hgroup hr li main menu nav ol p pre section summary table tbody tfoot thead tr ul'
  ).split(' '),
);
// Elements that indent what they hold.
const INDENTS = new Set(['ul', 'ol', 'dl', 'dd', 'blockquote', 'menu', 'dir']);
const INDENT_TAG = /<(?:ul|ol|dl|dd|blockquote|menu|dir)[\s>/]/gi;
const CELLS = new Set(['td', 'th']);
const VOID = new Set('area base br col embed hr img input keygen link meta param source track wbr'.split(' '));
const SAFE_NAME = /^[^\s"'<>/=]+$/;

const escapeText = (s: string): string => s.replace(/</g, '&lt;');
const escapeValue = (s: string): string => s.replace(/"/g, '&quot;');

function openTag(name: string, attribs: Record<string, string>): string {
  let tag = `<${name}`;
  for (const [key, value] of Object.entries(attribs)) {
    if (SAFE_NAME.test(key)) tag += ` ${key}="${escapeValue(value)}"`;
  }
  return `${tag}>`;
}

// Cheap tests first: no element can be nested deeper than the number of tags, nor lists deeper than
// the number of list tags. Most fragments need no parse at all.
function mayBeTooDeep(html: string, maxDepth: number, maxIndent: number): boolean {
  let tags = 0;
  for (let i = html.indexOf('<'); i >= 0 && tags <= maxDepth; i = html.indexOf('<', i + 1)) tags++;
  if (tags > maxDepth) return true;
  let indents = 0;
  INDENT_TAG.lastIndex = 0;
  while (indents <= maxIndent && INDENT_TAG.exec(html)) indents++;
  return indents > maxIndent;
}

type Entry = 'kept' | 'void' | 'dropped' | 'block' | 'list' | 'cell' | 'anchor' | 'hidden';

/**
 * `html` as it is when no element in it is nested deeper than `maxDepth` (and no list or quote deeper
 * than `maxIndent`); otherwise rewritten so that none is, with all of its visible text kept. Linear in
 * the length of `html`, and the rewrite is never longer than it.
 */
export function flattenDeep(html: string, maxDepth = MAX_DEPTH, maxIndent = MAX_INDENT): string {
  if (!mayBeTooDeep(html, maxDepth, maxIndent)) return html;
  const out: string[] = [];
  const stack: Entry[] = []; // one entry per open element: written (kept), or how it was dropped
  let kept = 0; // elements written and still open: the depth of the rewritten HTML
  let indents = 0; // lists and quotes written and still open
  let hidden = 0; // open elements whose content is not shown
  let anchorOpen = false; // a link written past the limit, still open
  let tooDeep = false;
  // What a dropped element leaves, written only before the next text or tag: nested empty blocks
  // leave one line break, not one each.
  let gap: '' | ' ' | '<br>' = '';
  const write = (s: string): void => {
    if (gap) out.push(gap);
    gap = '';
    out.push(s);
  };
  const leave = (g: ' ' | '<br>'): void => {
    if (gap !== '<br>') gap = g;
  };
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const indent = INDENTS.has(name);
        const deep = kept >= maxDepth || (indent && indents >= maxIndent);
        if (deep) tooDeep = true;
        if (hidden > 0 || (deep && hidesContent(name, attribs))) {
          hidden++;
          stack.push('hidden');
        } else if (VOID.has(name)) {
          write(openTag(name, attribs)); // holds nothing and ends at once: no depth, no close tag
          stack.push('void');
        } else if (!deep && !(name === 'li' && stack[stack.length - 1] === 'list')) {
          write(openTag(name, attribs));
          kept++;
          if (indent) indents++;
          stack.push('kept');
        } else if (name === 'a' && !anchorOpen && typeof attribs.href === 'string') {
          write(openTag(name, attribs));
          anchorOpen = true;
          stack.push('anchor');
        } else if (CELLS.has(name)) {
          leave(' ');
          stack.push('cell');
        } else if (BLOCKS.has(name)) {
          leave('<br>');
          stack.push(indent ? 'list' : 'block');
        } else {
          stack.push('dropped');
        }
      },
      onclosetag(name) {
        const how = stack.pop();
        if (how === 'hidden') hidden--;
        else if (how === 'kept') {
          kept--;
          if (INDENTS.has(name)) indents--;
          write(`</${name}>`);
        } else if (how === 'anchor') {
          anchorOpen = false;
          write('</a>');
        } else if (how === 'cell') leave(' ');
        else if (how === 'block' || how === 'list') leave('<br>');
      },
      ontext(data) {
        if (hidden === 0) write(escapeText(data));
      },
    },
    { decodeEntities: false },
  );
  parser.end(html);
  return tooDeep ? out.join('') : html;
}
