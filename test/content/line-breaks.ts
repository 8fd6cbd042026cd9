/**
 * Checks on wrapped text shared by the wrapper and body tests: widths, no half-empty lines, kinsoku,
 * nothing lost, clusters whole. Each returns a list of problems (empty when the text is fine), so a
 * failure names the line.
 */
import { textWidth } from '../../src/text/text-width';

/** A sentence of the kind the usability review found broken: no spaces between most words. */
export const JAPANESE =
  'こんにちは 🎉 確認コードは 739201 です。ご登録ありがとうございます。このコードの有効期限は十分間です。' +
  'お心当たりのない場合は、このメールを破棄してください。「マイページ」からいつでも設定を変更できます' +
  '（ログインが必要です）。今後ともよろしくお願いいたします！';

// May not start / end a line (the minimum the wrapper promises).
const NO_START = [...'、。，．」』）】〕！？ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ'];
const NO_END = [...'「『（【〔'];

/**
 * Problems with `wrapped` (the wrapping of one paragraph) at `width`: a line too wide, a line shorter
 * than width-2 although what follows could have gone on it (only an unbreakable Latin word or number that
 * would not fit excuses it), a line starting with closing punctuation or a small kana, or ending with an
 * opening bracket.
 */
export function lineProblems(wrapped: string, width: number): string[] {
  const lines = wrapped.split('\n');
  const problems: string[] = [];
  lines.forEach((line, i) => {
    const w = textWidth(line);
    if (w > width) problems.push(`line ${i} is ${w} columns: ${line}`);
    const next = lines[i + 1];
    if (next !== undefined && w < width - 2) {
      const word = /^[\x21-\x7e]+/.exec(next)?.[0];
      if (!word || w + 1 + word.length <= width) problems.push(`line ${i} is only ${w} of ${width} columns: ${line}`);
    }
    if (i > 0 && NO_START.some((c) => line.startsWith(c)))
      problems.push(`line ${i} starts with closing punctuation: ${line}`);
    if (next !== undefined && NO_END.some((c) => line.endsWith(c)))
      problems.push(`line ${i} ends with an opening bracket: ${line}`);
  });
  return problems;
}

/** The text with all whitespace removed: wrapping may drop spaces at breaks, nothing else. */
export const squeezed = (s: string): string => s.replace(/\s/g, '');

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemes = (s: string): string[] => [...segmenter.segment(s)].map((g) => g.segment);

/** Lines of `wrapped` holding a grapheme cluster that `source` does not (a cluster cut in two). */
export function splitClusters(source: string, wrapped: string): string[] {
  const known = new Set(graphemes(source));
  return wrapped.split('\n').filter((line) => graphemes(line).some((g) => !known.has(g)));
}
