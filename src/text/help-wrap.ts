/**
 * The --help texts (the app's, serve's, admin's, each scripting command's) fitted to the terminal's
 * width: they are written hard-wrapped, and here each paragraph, and each option's description with
 * its continuation lines, is joined again and wrapped at word boundaries, continuation lines hanging
 * under the description's column (under the first "[" of a usage line). A block of one line that fits
 * is kept exactly as written, so aligned tables keep their columns. Our own ASCII text: a character is
 * a column.
 */

/** The width of a help text that does not go to a terminal (a pipe, a file). */
export const HELP_WIDTH = 80;
// An option's description narrower than this starts on the line below its name instead, indented this much.
const MIN_DESCRIPTION = 20;
const BELOW = 6;

/** The width help is fitted to: the terminal's columns on a terminal, else 80. */
export function helpWidth(out: { isTTY?: boolean; columns?: number }): number {
  return out.isTTY === true && out.columns !== undefined && out.columns > 0 ? out.columns : HELP_WIDTH;
}

/** One paragraph, or one option with its description: lines that are wrapped together. */
interface Block {
  lines: string[];
  /** Spaces before the first line's text. */
  indent: number;
  /** Where continuation lines start: the description's column of an option, else the indent. */
  hang: number;
  /** "  --name ARG    description": a name, two or more spaces, a description. */
  entry: boolean;
}

/** `text` with no line wider than `width` (but a word wider than a whole line, cut). */
export function fitHelp(text: string, width: number): string {
  return blocksOf(text.split('\n'))
    .flatMap((block) => fitBlock(block, Math.max(width, 1)))
    .join('\n');
}

// An option line: indent, a name (single spaces within), the last run of 2+ spaces, a description.
const ENTRY = /^( +)(\S.*?) {2,}(\S(?:(?! {2}).)*)$/;

function shapeOf(line: string): Omit<Block, 'lines'> {
  const indent = line.length - line.trimStart().length;
  const entry = ENTRY.exec(line);
  if (entry) return { indent, hang: line.length - entry[3]!.length, entry: true };
  // A usage line's options hang under its first one.
  const options = line.startsWith('Usage: ') ? line.indexOf(' [') + 1 : 0;
  return { indent, hang: options > 0 ? options : indent, entry: false };
}

/** Whether `line` goes on with `block`: it starts at the block's hang and starts nothing of its own. */
function continues(block: Block, line: string, shape: Omit<Block, 'lines'>): boolean {
  if (line.trim() === '' || shape.entry || shape.indent !== block.hang) return false;
  const last = block.lines[block.lines.length - 1]!.trimEnd();
  // A heading ("Options:") is followed by what it heads; a plain line that ends a sentence ends its paragraph.
  return block.entry || !(last.endsWith(':') || last.endsWith('.'));
}

function blocksOf(lines: string[]): Block[] {
  const blocks: Block[] = [];
  for (const line of lines) {
    const shape = shapeOf(line);
    const current = blocks[blocks.length - 1];
    if (current && current.lines[0]!.trim() !== '' && continues(current, line, shape)) current.lines.push(line);
    else blocks.push({ lines: [line], ...shape });
  }
  return blocks;
}

function fitBlock(block: Block, width: number): string[] {
  const first = block.lines[0]!;
  if (block.lines.length === 1 && first.length <= width) return [first];
  const head = block.entry ? first.slice(0, block.hang) : ' '.repeat(block.indent);
  const words = wordsOf([first.slice(head.length), ...block.lines.slice(1)].join(' '), first.startsWith('Usage: '));
  if (width - block.hang >= MIN_DESCRIPTION) return wrapWords(words, head, block.hang, width);
  // Too narrow beside the name (or under a usage line's command): the name on its line as written
  // when it fits, the description under it, a little indented.
  const below = Math.min(BELOW, Math.floor(width / 4));
  const name = head.trimEnd();
  const named = !block.entry
    ? []
    : name.length <= width
      ? [name]
      : wrapWords(name.trim().split(' '), ' '.repeat(below), below, width);
  return [...named, ...wrapWords(words, ' '.repeat(block.entry ? below : Math.min(block.indent, below)), below, width)];
}

/** The words of `text`; in a usage line an option in brackets ("[--timeout SECONDS]") is one word. */
function wordsOf(text: string, usage: boolean): string[] {
  if (!usage) return text.split(' ').filter((w) => w !== '');
  const words: string[] = [];
  let word = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === ' ' && depth === 0) {
      if (word !== '') words.push(word);
      word = '';
      continue;
    }
    if (ch === '[') depth += 1;
    if (ch === ']') depth = Math.max(0, depth - 1);
    word += ch;
  }
  if (word !== '') words.push(word);
  return words;
}

/** `words` after `head`, a space apart, a new line (`hang` spaces) before a word that would pass `width`. */
function wrapWords(words: string[], head: string, hang: number, width: number): string[] {
  const lines: string[] = [];
  let line = head;
  let empty = true;
  for (const word of words) {
    for (const piece of cut(word, Math.max(1, width - hang))) {
      if (line.length + (empty ? 0 : 1) + piece.length > width && line.trim() !== '') {
        lines.push(line.trimEnd());
        line = ' '.repeat(hang);
        empty = true;
      }
      line += (empty ? '' : ' ') + piece;
      empty = false;
    }
  }
  lines.push(line.trimEnd());
  return lines;
}

/** A word in pieces of at most `room` characters (a word longer than a whole line is cut). */
function cut(word: string, room: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < word.length; at += room) pieces.push(word.slice(at, at + room));
  return pieces;
}
