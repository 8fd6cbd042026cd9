/**
 * Code and link detection stays linear in the size of what it reads, on the inputs that made it
 * quadratic: long runs without a space, where a pattern tried from every position of the run scans to
 * its end and fails. 32 KB of kanji took 17 s in the e-mail mask alone. The runs here are 512 KB, so
 * the old patterns would take hours (16x the length, 256x the time, of that 17 s), far past the test's
 * timeout; the linear ones take a fraction of a second. No timing is asserted: the answer is.
 */
import { describe, expect, it } from 'vitest';
import { detectCode, detectLink } from '../../src/content/codes';
import { unwrap } from '../../src/content/codes-vocabulary';
import { renderBody } from '../../src/content/html-text';
import { wrapText } from '../../src/text/text-wrap';

const SIZE = 512 * 1024;
const run = (unit: string, size = SIZE): string => unit.repeat(Math.ceil(size / unit.length));

// Each shape is the alphabet of at least one pattern: letters and digits (the e-mail mask), digits with
// separators (prices, percentages, grouped numbers), phone characters, URL and JWT pieces.
const SHAPES: Record<string, string> = {
  'kanji (CJK prose has no spaces)': '認証漢字',
  kana: 'かなカナ',
  hangul: '한국어',
  'thai (no spaces either)': 'รหัสของคุณ',
  'devanagari labels': 'कोड',
  'arabic labels': 'رمز',
  'han beside digits': '码1',
  'thai beside digits': 'ส1',
  'latin letters': 'abc',
  digits: '1',
  'digits and dots': '1.',
  'digits and commas': '1,',
  'letters and dots': 'a.',
  'plus and digits': '+1',
  'dashed groups': 'AB-',
  parentheses: '(1',
  'at signs': 'a@',
  percentages: '1%',
  'JWT starts': 'eyJ',
  'URL starts': 'http://a',
  hashes: '#a',
  colons: '1:',
};

describe('code detection on long runs without spaces', () => {
  for (const [name, unit] of Object.entries(SHAPES)) {
    it(`finds the code beside 512 KB of ${name}`, () => {
      const long = run(unit);
      // The subject is read whole (the client caps it, the detector does not rely on that).
      expect(detectCode({ subject: `${long} Your code is 482913`, text: '' })?.code).toBe('482913');
      // The body is read up to its first 32 KB: the code comes first, then the run.
      expect(detectCode({ subject: 'Verify', text: `Your code is 482913\n${long}` })?.code).toBe('482913');
    });
  }

  it('finds the code in a 300 KB message of spaceless CJK text, as the inbox badge reads it', () => {
    const text = `認証コード：482913\n${run('このメールは自動送信されています日本語の文章には空白がありません', 300 * 1024)}`;
    const body = renderBody({ bodyHtml: `<p>${text}</p>`, bodyText: null }, 1000, { maxBytes: 32 * 1024 });
    expect(detectCode({ subject: 'ご登録の確認', text: body.text })?.code).toBe('482913');
  });
});

describe('link detection on long URLs and many links', () => {
  it('scores a 1 MB URL made of JWT starts ("eyJeyJ...")', () => {
    // In the path, ending in no token shape: every pattern reads it to the end.
    const url = `https://x.example/confirm/${run('eyJ', 1024 * 1024)}!`;
    const found = detectLink({
      subject: 'Verify your address',
      text: 'Confirm your address [1]',
      links: [{ n: 1, url, text: 'Confirm' }],
    });
    expect(found?.url).toBe(url);
  });

  it('finds the right link among 500 in a 256 KB text', () => {
    const links = Array.from({ length: 500 }, (_, i) => ({
      n: i + 1,
      url: `https://news.example/article/${i}`,
      text: `Article ${i}`,
    }));
    links[499] = { n: 500, url: 'https://acme.example/verify?token=4f2a9c81b7e3', text: 'here' };
    const filler = run('Read more news of the day. ', 200 * 1024);
    const text = `${filler}${links.map((l) => `${l.text} [${l.n}]`).join(' ')}\nTo confirm your address, click here [500]`;
    expect(detectLink({ subject: 'Welcome', text, links })?.url).toBe('https://acme.example/verify?token=4f2a9c81b7e3');
  });
});

describe('wrapping and unwrapping long text', () => {
  it('wraps a 4 MB line without spaces at the width, losing nothing', () => {
    const line = run('aB3/_-', 4 * 1024 * 1024);
    const wrapped = wrapText(line, 80);
    const lines = wrapped.split('\n');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    expect(lines.join('')).toBe(line);
  });

  it('unwraps a text of 200,000 lines', () => {
    const text = run('short line\n', 200_000 * 11);
    expect(unwrap(text).split('\n').length).toBe(200_001);
  });
});
