/**
 * Verification codes in the languages our users write in (test/fixtures/signup/languages.ts): every
 * mail of the corpus gives its code (or none), per language, and a verification code wins over a
 * discount code beside it.
 */
import { describe, expect, it } from 'vitest';
import { detectCode } from '../../src/content/codes';
import { renderBody } from '../../src/content/html-text';
import { LANGUAGE_FIXTURES } from '../fixtures/signup/languages';

const code = (subject: string, text: string) => detectCode({ subject, text })?.code ?? null;

describe('codes in other languages', () => {
  it('the corpus covers the ten most spoken languages and eight more, each with a code and decoys', () => {
    const langs = new Set(LANGUAGE_FIXTURES.map((f) => f.lang));
    for (const lang of [
      'en',
      'zh',
      'hi',
      'es',
      'fr',
      'ar',
      'bn',
      'pt',
      'ru',
      'ur',
      'th',
      'ja',
      'ko',
      'de',
      'id',
      'vi',
      'tr',
      'it',
    ]) {
      expect(langs.has(lang), lang).toBe(true);
      expect(LANGUAGE_FIXTURES.filter((f) => f.lang === lang && f.code).length, lang).toBeGreaterThanOrEqual(2);
    }
    expect(LANGUAGE_FIXTURES.filter((f) => f.code === null).length).toBeGreaterThanOrEqual(4);
    expect(new Set(LANGUAGE_FIXTURES.map((f) => f.name)).size).toBe(LANGUAGE_FIXTURES.length);
  });

  for (const width of [80, 40]) {
    it(`finds the code of every mail of the corpus, and none where there is none (${width} columns)`, () => {
      const wrong: string[] = [];
      for (const f of LANGUAGE_FIXTURES) {
        const body = renderBody({ bodyHtml: f.html ?? null, bodyText: f.text ?? null }, width);
        const got = code(f.subject, body.text);
        if (got !== f.code) wrong.push(`${f.name}: expected ${f.code} got ${got}`);
      }
      expect(wrong).toEqual([]);
    });
  }

  it('reads the Thai and Hindi sentences of the issue', () => {
    expect(code('Verify', 'รหัสของคุณคือ 456789')).toBe('456789');
    expect(code('Verify', 'आपका कोड 123456')).toBe('123456');
    expect(code('', 'รหัสของคุณคือ 456789')).toBe('456789');
    expect(code('', 'आपका कोड 123456')).toBe('123456');
  });

  it('prefers a verification code over a discount code beside it, in either order', () => {
    expect(code('Your receipt', 'Use code SAVE20\nVerification: 558812')).toBe('558812');
    expect(code('Your receipt', 'Verification: 558812\nUse code SAVE20')).toBe('558812');
    expect(code('Welcome', 'Your code: 661204.\nUse code SAVE20 for 20% off.')).toBe('661204');
  });

  it('takes a code written right after a label in a script without spaces', () => {
    expect(code('', '您的验证码是638204，5分钟内有效。')).toBe('638204');
    expect(code('', '638204是您的验证码')).toBe('638204');
    expect(code('', '認証コードは730615です')).toBe('730615');
  });
});
