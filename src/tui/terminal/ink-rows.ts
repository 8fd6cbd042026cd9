/**
 * Ink's frame assembly, remembered from frame to frame. Ink's Output.get() (ink/build/output.js) builds
 * every frame from nothing: each text is cut into styled characters, laid on a grid of cells, and every
 * row of the grid turned back into a string; the caches it keeps die with the frame. A key that moves
 * the selection changes two rows and pays for all of them, and that was most of a keypress's work.
 *
 * This is the same assembly, row by row: what a row gets (the texts that reach it, in order, at their
 * columns, after clipping and transforms) is its key, and a row whose key is the one it had in the last
 * frame of that size is the string it was. A row that changed is built exactly as Ink builds it, with
 * Ink's own functions (passed in), from styled characters kept across frames. The build
 * (scripts/build-config.mjs) puts it in place of Ink's get(); test/tui/terminal/ink-rows.test.ts checks
 * that both give the same frames.
 */

/** One cell as @alcalzone/ansi-tokenize (Ink's) describes it. */
export interface StyledChar {
  type: 'char';
  value: string;
  fullWidth: boolean;
  styles: unknown[];
}

/** The functions Ink's output.js assembles frames with, its own copies. */
export interface InkOutputDeps {
  tokenize(text: string): unknown[];
  styledCharsFromTokens(tokens: unknown[]): StyledChar[];
  styledCharsToString(chars: StyledChar[]): string;
  sliceAnsi(text: string, from: number, to?: number): string;
  stringWidth(text: string): number;
}

interface Clip {
  x1?: number;
  x2?: number;
  y1?: number;
  y2?: number;
}

type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: ((line: string, index: number) => string)[] }
  | { type: 'clip'; clip: Clip }
  | { type: 'unclip' };

/** What Ink's Output holds when get() is called. */
export interface InkOutput {
  width: number;
  height: number;
  operations: Operation[];
}

// Entries a generation of a memo holds: a screen's worth many times over. A memo keeps the entries of
// its current generation and of the one before; an entry asked for again moves to the current one, and
// when the current one is full the one before is dropped. So what the last frames used stays, and what
// the screen stopped showing (every second of the countdown, every "last checked" time) goes instead of
// piling up: at most twice this many entries, however long the app runs.
export const MEMO_GENERATION = 500;

/** A memo of `make` holding what was used lately (see MEMO_GENERATION). */
export function recentMemo<V>(make: (key: string) => V, generation = MEMO_GENERATION): (key: string) => V {
  let current = new Map<string, V>();
  let previous = new Map<string, V>();
  return (key) => {
    let value = current.get(key);
    if (value !== undefined) return value;
    value = previous.get(key) ?? make(key);
    if (current.size >= generation) {
      previous = current;
      current = new Map();
    }
    current.set(key, value);
    return value;
  };
}

/**
 * A line's styled characters as kept: one object shape for all (the tokenizer's spread copies each get
 * a hidden class and a property array of their own, ~300 bytes a character), and characters that carry
 * the same styles share one array of them.
 */
function compactChars(chars: StyledChar[]): StyledChar[] {
  let styles: unknown[] = [];
  return chars.map((c) => {
    if (!sameStyles(c.styles, styles)) styles = c.styles;
    return { type: 'char', value: c.value, fullWidth: c.fullWidth, styles };
  });
}

const sameStyles = (a: unknown[], b: unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** One ANSI code as the tokenizer gives it. */
interface AnsiCode {
  code: string;
  endCode: string;
}

// The same codes, in the same order (the tokenizer's code objects differ from line to line).
const sameCodes = (a: unknown[], b: unknown[]): boolean =>
  a === b ||
  (a.length === b.length &&
    a.every((x, i) => (x as AnsiCode).code === (b[i] as AnsiCode).code && (x as AnsiCode).endCode === (b[i] as AnsiCode).endCode));

// The styles of every blank cell, shared.
const NO_STYLES: unknown[] = [];

/**
 * Characters as one string, exactly as Ink's styledCharsToString makes it, for a fraction of the work:
 * that function works out the codes between each two neighbours (three Sets and four arrays a
 * character), and between two with the same codes they come to nothing. So each run of characters with
 * the same codes goes to it as one character carrying the run's text.
 */
function charsToString(chars: StyledChar[], toString: (chars: StyledChar[]) => string): string {
  const runs: StyledChar[] = [];
  let run: StyledChar | undefined;
  for (const c of chars) {
    if (run && sameCodes(run.styles, c.styles)) run.value += c.value;
    else runs.push((run = { type: 'char', value: c.value, fullWidth: false, styles: c.styles }));
  }
  return toString(runs);
}

// Separators of a row's key: they cannot occur in a text Ink writes (terminal-safe text has no C0 but \n).
const PIECE = '\u0000';
const FIELD = '\u0001';

/** Ink's Output.get(), row by row and remembered (see above); `this` is Ink's Output. */
export function rowCachedGet(deps: InkOutputDeps): (this: InkOutput) => { output: string; height: number } {
  const styledChars = recentMemo((line) => compactChars(deps.styledCharsFromTokens(deps.tokenize(line))));
  const width = recentMemo((text) => deps.stringWidth(text));
  const widestLine = recentMemo((text) => Math.max(0, ...text.split('\n').map(width)));
  // The last frame's rows of each size: key and string.
  const framesBySize = new Map<string, { key: string; text: string }[]>();

  /** Row `row` from its pieces (column, text), as Ink's get() builds a row of its grid. */
  function buildRow(cols: number, pieces: [number, string][]): string {
    const cells: (StyledChar | undefined)[] = [];
    for (let x = 0; x < cols; x++) cells.push({ type: 'char', value: ' ', fullWidth: false, styles: NO_STYLES });
    for (const [x, line] of pieces) {
      let offsetX = x;
      for (const character of styledChars(line)) {
        cells[offsetX] = character;
        const characterWidth = Math.max(1, width(character.value));
        for (let i = 1; i < characterWidth; i++) {
          cells[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
        }
        offsetX += characterWidth;
      }
    }
    return charsToString(
      cells.filter((c): c is StyledChar => c !== undefined),
      deps.styledCharsToString,
    ).trimEnd();
  }

  return function get(this: InkOutput) {
    const rows: [number, string][][] = Array.from({ length: this.height }, () => []);
    const clips: Clip[] = [];
    for (const operation of this.operations) {
      if (operation.type === 'clip') clips.push(operation.clip);
      if (operation.type === 'unclip') clips.pop();
      if (operation.type !== 'write') continue;
      const { text, transformers } = operation;
      let { x, y } = operation;
      let lines = text.split('\n');
      const clip = clips.at(-1);
      if (clip) {
        const clipHorizontally = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
        const clipVertically = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
        if (clipHorizontally && (x + widestLine(text) < clip.x1! || x > clip.x2!)) continue;
        if (clipVertically && (y + lines.length < clip.y1! || y > clip.y2!)) continue;
        if (clipHorizontally) {
          lines = lines.map((line) => {
            const from = x < clip.x1! ? clip.x1! - x : 0;
            const lineWidth = width(line);
            const to = x + lineWidth > clip.x2! ? clip.x2! - x : lineWidth;
            return deps.sliceAnsi(line, from, to);
          });
          if (x < clip.x1!) x = clip.x1!;
        }
        if (clipVertically) {
          const from = y < clip.y1! ? clip.y1! - y : 0;
          const to = y + lines.length > clip.y2! ? clip.y2! - y : lines.length;
          lines = lines.slice(from, to);
          if (y < clip.y1!) y = clip.y1!;
        }
      }
      let offsetY = 0;
      for (let [index, line] of lines.entries()) {
        const row = rows[y + offsetY];
        // As in Ink: a line off the grid is dropped, and the lines after it stay on its row.
        if (!row) continue;
        for (const transformer of transformers) line = transformer(line, index);
        row.push([x, line]);
        offsetY++;
      }
    }

    const size = `${this.width}x${this.height}`;
    const last = framesBySize.get(size);
    const frame = rows.map((pieces, i) => {
      const key = pieces.map(([x, line]) => `${x}${FIELD}${line}`).join(PIECE);
      const before = last?.[i];
      return before && before.key === key ? before : { key, text: buildRow(this.width, pieces) };
    });
    if (!last && framesBySize.size >= 8) framesBySize.clear();
    framesBySize.set(size, frame);
    return { output: frame.map((r) => r.text).join('\n'), height: rows.length };
  };
}
