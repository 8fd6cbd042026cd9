import { describe, expect, it } from 'vitest';
import { detectCode, detectLink } from '../../src/content/codes';
import { renderBody } from '../../src/content/html-text';
import { HELD_OUT_FIXTURES } from '../fixtures/signup/held-out';
import { SIGNUP_FIXTURES, type SignupFixture } from '../fixtures/signup/messages';
import { REVIEW_FIXTURES } from '../fixtures/signup/review-set';

const ALL = [...SIGNUP_FIXTURES, ...HELD_OUT_FIXTURES, ...REVIEW_FIXTURES];

interface Score {
  tp: number;
  fp: number;
  fn: number;
  misses: string[];
}

/** Precision/recall bookkeeping: a wrong answer is both a false positive and a false negative. */
function tally(score: Score, name: string, expected: string | null, got: string | null): void {
  if (got !== null && got === expected) score.tp++;
  else {
    if (got !== null) score.fp++;
    if (expected !== null) score.fn++;
    if (got !== expected) score.misses.push(`${name}: expected ${expected} got ${got}`);
  }
}

const ratio = (a: number, b: number) => (b === 0 ? 1 : a / b);

function analyse(f: SignupFixture, width = 80) {
  const body = renderBody({ bodyHtml: f.html ?? null, bodyText: f.text ?? null }, width);
  return {
    code: detectCode({ subject: f.subject, text: body.text }),
    link: detectLink({ subject: f.subject, text: body.text, links: body.links }),
  };
}

describe('code and link detection on the signup fixtures', () => {
  it('has at least 30 varied fixtures', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(30);
    expect(ALL.filter((f) => f.code).length).toBeGreaterThanOrEqual(15);
    expect(ALL.filter((f) => f.link).length).toBeGreaterThanOrEqual(8);
    expect(ALL.filter((f) => !f.code && !f.link).length).toBeGreaterThanOrEqual(5);
    expect(new Set(ALL.map((f) => f.name)).size).toBe(ALL.length);
  });

  it('finds codes and links with precision >= 0.95 and recall >= 0.9', () => {
    const measure = (fixtures: SignupFixture[]) => {
      const codes: Score = { tp: 0, fp: 0, fn: 0, misses: [] };
      const links: Score = { tp: 0, fp: 0, fn: 0, misses: [] };
      for (const f of fixtures) {
        const found = analyse(f);
        tally(codes, f.name, f.code, found.code?.code ?? null);
        tally(links, f.name, f.link, found.link?.url ?? null);
      }
      return {
        codes,
        links,
        codePrecision: ratio(codes.tp, codes.tp + codes.fp),
        codeRecall: ratio(codes.tp, codes.tp + codes.fn),
        linkPrecision: ratio(links.tp, links.tp + links.fp),
        linkRecall: ratio(links.tp, links.tp + links.fn),
      };
    };
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    const line = (label: string, n: number, r: ReturnType<typeof measure>) =>
      `${label} (${n} mails): codes precision ${pct(r.codePrecision)} recall ${pct(r.codeRecall)} ` +
      `(tp ${r.codes.tp} fp ${r.codes.fp} fn ${r.codes.fn}); links precision ${pct(r.linkPrecision)} ` +
      `recall ${pct(r.linkRecall)} (tp ${r.links.tp} fp ${r.links.fp} fn ${r.links.fn})`;
    const all = measure(ALL);
    console.log(
      [
        line('signup fixtures', SIGNUP_FIXTURES.length, measure(SIGNUP_FIXTURES)),
        line('held-out fixtures', HELD_OUT_FIXTURES.length, measure(HELD_OUT_FIXTURES)),
        line('review fixtures', REVIEW_FIXTURES.length, measure(REVIEW_FIXTURES)),
        line('all', ALL.length, all),
        ...[...all.codes.misses, ...all.links.misses].map((m) => `  miss: ${m}`),
      ].join('\n'),
    );
    expect(all.codePrecision).toBeGreaterThanOrEqual(0.95);
    expect(all.codeRecall).toBeGreaterThanOrEqual(0.9);
    expect(all.linkPrecision).toBeGreaterThanOrEqual(0.95);
    expect(all.linkRecall).toBeGreaterThanOrEqual(0.9);
  });
});

describe('code and link detection at other viewer widths', () => {
  // The viewer wraps to the terminal; the detectors undo the wrap, so a narrow terminal must not
  // push a zip code onto a line of its own and make it look like a code.
  for (const width of [40, 120]) {
    it(`keeps precision and recall at ${width} columns`, () => {
      let tp = 0;
      let fp = 0;
      let fn = 0;
      for (const f of ALL) {
        const found = analyse(f, width);
        for (const [expected, got] of [
          [f.code, found.code?.code ?? null],
          [f.link, found.link?.url ?? null],
        ] as const) {
          if (got !== null && got === expected) tp++;
          else {
            if (got !== null) fp++;
            if (expected !== null) fn++;
          }
        }
      }
      expect(ratio(tp, tp + fp)).toBeGreaterThanOrEqual(0.95);
      expect(ratio(tp, tp + fn)).toBeGreaterThanOrEqual(0.9);
    });
  }
});

describe('detectCode', () => {
  const code = (subject: string, text: string) => detectCode({ subject, text })?.code ?? null;

  it('takes a labelled code and reports a confidence in 0..1', () => {
    const r = detectCode({ subject: 'Verify', text: 'Your verification code is 123456.' });
    expect(r?.code).toBe('123456');
    expect(r!.confidence).toBeGreaterThan(0.6);
    expect(r!.confidence).toBeLessThanOrEqual(1);
  });

  it('prefers the labelled code over other numbers', () => {
    expect(code('Hi', 'Order 998877 shipped. Your code: 246810. Call 555-0100.')).toBe('246810');
    expect(code('Hi', 'Ref 4471920\nVerification code\n\n 803 112 \n')).toBe('803112');
  });

  it('rejects decoys on their own', () => {
    for (const text of [
      'Happy new year 2026!',
      'Price: $12.99, was 1,299 points',
      'Order #123456 has shipped',
      'Order number 123456',
      'Call us at +1 (555) 123-4567',
      'Meet on 2026-11-21 at 10:30',
      'Visit us: 1 Market St, Springfield, IL 62704',
      'Invoice 20261121 attached',
      'Ticket 48213 updated',
      'color: #A1B2C3',
      'Tracking 1Z999AA10123456784',
      'Use promo code SUMMER20 for 20% off',
      'Your zip code 90210 is in our delivery area',
    ]) {
      expect(code('Hello', text), text).toBeNull();
    }
  });

  it('takes the digits of a prefixed code and of a code drawn one digit per cell', () => {
    expect(code('Sign in', 'Your Google verification code is G-558214')).toBe('558214');
    expect(code('FB-54821 is your confirmation code', 'Enter it in the app.')).toBe('54821');
    expect(code('Verify your account', 'Your verification code:\n\n5 8 2 9 1 7\n\nPhone: 0 8 0 0 1 2 3')).toBe(
      '582917',
    );
    // A prefix is not enough without a label: ticket and order ids keep theirs and stay decoys.
    for (const text of [
      'Your ticket JS-48213 was updated.',
      'Ticket PR-4821 mentions your login.',
      'Order A-123456 shipped.',
      'Rate us: 1 2 3 4 5',
      'Steps 1 2 3 4 are done.',
    ]) {
      expect(code('Hello', text), text).toBeNull();
    }
  });

  it('gives a code grouped for reading as the digits a code field takes', () => {
    // Shown "123-456" or "123 456" in the mail; copied, badged and printed as 123456.
    expect(code('Verify', 'Your verification code is 123-456.')).toBe('123456');
    expect(code('Verify', 'Your verification code is 123 456.')).toBe('123456');
    expect(code('Your code is 1234-5678', 'Enter it to sign in.')).toBe('12345678');
    // Letters and digits keep their dashes: there they may be part of the code.
    expect(code('Verify', 'Your verification code is A7K-29Q.')).toBe('A7K-29Q');
  });

  it('reads street words whole: "Driver" beside a number is not an address', () => {
    expect(code('Your parcel', 'Driver: 0151 23456789. Show PIN 4821 at the door.')).toBe('4821');
    expect(code('Hello', 'Visit us: 12 Drive, Springfield')).toBeNull();
  });

  it('finds a code given only in the subject', () => {
    expect(code('123456 is your Acme code', 'Use the code in the subject.')).toBe('123456');
  });

  it('ignores the link list and link references of a rendered body', () => {
    const text = 'Click to verify [1]\n\nLinks:\n[1] https://x.example/v?code=482913&t=AB12CD34';
    expect(code('Verify your email', text)).toBeNull();
  });

  it('copes with empty or odd input', () => {
    expect(detectCode({ subject: '', text: '' })).toBeNull();
    expect(detectCode({ subject: undefined as unknown as string, text: null as unknown as string })).toBeNull();
  });

  it('finishes on a long text full of decoys (a backtracking regex would not, within the test timeout)', () => {
    const long = `${'lorem ipsum 2026 $12.99 order 123456 '.repeat(40000)}`;
    expect(detectCode({ subject: 'x', text: long })).toBeNull();
  });
});

describe('detectLink', () => {
  const links = (...urls: [string, string][]) => urls.map(([url, text], i) => ({ n: i + 1, url, text }));

  it('prefers the confirm link over help, privacy, social and unsubscribe links', () => {
    const r = detectLink({
      subject: 'Confirm your email',
      text: 'Welcome!',
      links: links(
        ['https://x.example/help', 'Help'],
        ['https://twitter.com/x', 'Twitter'],
        ['https://x.example/confirm?token=abcdef123456', 'Confirm my email'],
        ['https://x.example/unsubscribe?u=1', 'Unsubscribe'],
      ),
    });
    expect(r).toEqual({ url: 'https://x.example/confirm?token=abcdef123456', text: 'Confirm my email' });
  });

  it('uses the sentence before a "click here" link', () => {
    const text = 'To activate your account, click here [1].\n\nQuestions? Visit our FAQ [2].';
    const r = detectLink({
      subject: 'Welcome',
      text,
      links: links(['https://x.example/a?t=9f8e7d6c5b4a', 'click here'], ['https://x.example/faq', 'FAQ']),
    });
    expect(r?.url).toBe('https://x.example/a?t=9f8e7d6c5b4a');
  });

  it('returns null when no link looks like a confirmation, and for mailto links', () => {
    expect(
      detectLink({ subject: 'News', text: '', links: links(['https://x.example/blog/1', 'Read more']) }),
    ).toBeNull();
    expect(
      detectLink({ subject: 'Verify', text: '', links: links(['mailto:verify@x.example', 'verify@x.example']) }),
    ).toBeNull();
    expect(detectLink({ subject: 'Verify', text: '', links: [] })).toBeNull();
  });
});
