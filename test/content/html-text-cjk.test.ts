/**
 * Both body paths wrap CJK text by the same rules: HTML (html-to-text leaves paragraphs whole, wrapText
 * breaks them) and the plain-text part. Before, html-to-text broke only at spaces, so an unspaced
 * Japanese sentence jumped to its own line and left the line above half empty.
 */
import { describe, expect, it } from 'vitest';
import { renderBody } from '../../src/content/html-text';
import { JAPANESE, lineProblems, splitClusters, squeezed } from './line-breaks';

const html = (bodyHtml: string) => ({ bodyHtml, bodyText: null });
const text = (bodyText: string) => ({ bodyHtml: null, bodyText });
const paragraphs = (s: string) => s.split(/\n\n+/);

describe('renderBody wraps Japanese text', () => {
  it('fills every line of an HTML paragraph and of a text paragraph at 20, 30 and 40 columns', () => {
    for (const width of [20, 30, 40]) {
      for (const input of [html(`<p>${JAPANESE}</p><p>${JAPANESE}</p>`), text(`${JAPANESE}\n\n${JAPANESE}`)]) {
        const body = renderBody(input, width).text;
        const paras = paragraphs(body);
        expect(paras).toHaveLength(2);
        for (const p of paras) {
          expect(lineProblems(p, width), `at ${width}:\n${p}`).toEqual([]);
          expect(squeezed(p)).toBe(squeezed(JAPANESE));
        }
      }
    }
    expect(renderBody(html(`<p>${JAPANESE}</p>`), 40).text.split('\n')[0]).toBe(
      'こんにちは 🎉 確認コードは 739201 です。',
    );
  });

  it('keeps list indentation and quote markers on wrapped CJK lines, and emoji sequences whole', () => {
    const item = '日本語のリスト項目はとても長いので折り返されます👨‍👩‍👧‍👦。';
    const body = renderBody(html(`<p>Intro</p><ul><li>${item}</li></ul><blockquote>${item}</blockquote>`), 20).text;
    expect(body.split('\n')).toEqual([
      'Intro',
      '',
      ' * 日本語のリスト項',
      '   目はとても長いの',
      '   で折り返されます',
      '   👨‍👩‍👧‍👦。',
      '',
      '> 日本語のリスト項目',
      '> はとても長いので折',
      // The family is 11 columns (docs/architecture.md, "Cell widths"): it does not fit after the kana.
      '> り返されます',
      '> 👨‍👩‍👧‍👦。',
    ]);
    expect(splitClusters(`Intro * > ${item}`, body)).toEqual([]);
  });

  it('lays out English HTML as html-to-text did: lists hang, quotes repeat their marker, a rule spans the width', () => {
    const body = renderBody(
      html(
        '<p>Intro</p><ul><li>first item which is long enough to wrap around</li></ul><blockquote>quoted text that goes on and on</blockquote><hr>',
      ),
      24,
    ).text;
    expect(body.split('\n')).toEqual([
      'Intro',
      '',
      ' * first item which is',
      '   long enough to wrap',
      '   around',
      '',
      '> quoted text that goes',
      '> on and on',
      '',
      '-'.repeat(24),
    ]);
  });
});
