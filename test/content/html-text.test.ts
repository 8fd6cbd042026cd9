import { readdirSync, readFileSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  acceptUrl,
  DEFAULT_MAX_BYTES,
  PARTIAL_NOTE,
  renderBody,
  renderBodyAsync,
  SLICE_BYTES,
} from '../../src/content/html-text';
import { isTerminalSafe } from '../../src/text/safe-text';
import { textWidth } from '../../src/text/text-width';
import { newsletterHtml } from '../../bench/html-fixture';
import { HOSTILE_DIR } from '../harness/fixtures';

const html = (bodyHtml: string) => ({ bodyHtml, bodyText: null });
const text = (bodyText: string) => ({ bodyHtml: null, bodyText });
const lines = (s: string) => s.split('\n');
const maxWidth = (s: string) => Math.max(...lines(s).map(textWidth));

describe('renderBody from HTML', () => {
  it('wraps paragraphs to the width', () => {
    const para = 'The quick brown fox jumps over the lazy dog. '.repeat(10);
    const r = renderBody(html(`<p>${para}</p><p>Second paragraph.</p>`), 40);
    expect(maxWidth(r.text)).toBeLessThanOrEqual(40);
    expect(lines(r.text).length).toBeGreaterThan(5);
    expect(r.text).toContain('The quick brown fox');
    expect(r.text).toMatch(/\n\nSecond paragraph\.$/);
  });

  it('keeps links as numbered references listed at the end, one number per distinct URL', () => {
    const r = renderBody(
      html(
        '<p>Please <a href="https://acme.example/verify?t=abc">verify your email</a> or read the ' +
          '<a href="https://acme.example/faq">FAQ</a>. <a href="https://acme.example/verify?t=abc">Again</a></p>' +
          '<p><a href="mailto:help@acme.example">write to us</a></p>',
      ),
      80,
    );
    expect(r.text).toContain('verify your email [1]');
    expect(r.text).toContain('FAQ [2]');
    expect(r.text).toContain('Again [1]');
    expect(r.text).toContain('write to us [3]');
    expect(r.text).toMatch(
      /Links:\n\[1\] https:\/\/acme\.example\/verify\?t=abc\n\[2\] https:\/\/acme\.example\/faq\n\[3\] mailto:help@acme\.example$/,
    );
    expect(r.links).toEqual([
      { n: 1, url: 'https://acme.example/verify?t=abc', text: 'verify your email' },
      { n: 2, url: 'https://acme.example/faq', text: 'FAQ' },
      { n: 3, url: 'mailto:help@acme.example', text: 'write to us' },
    ]);
  });

  it('names an image link by its alt text', () => {
    const r = renderBody(html('<a href="https://acme.example/"><img src="logo.png" alt="Acme"></a>'), 80);
    expect(r.text).toMatch(/^Acme \[1\]/);
    expect(r.links[0]).toEqual({ n: 1, url: 'https://acme.example/', text: 'Acme' });
  });

  it('drops javascript:, data:, relative and fragment links but keeps their text', () => {
    const r = renderBody(
      html(
        '<a href="javascript:alert(1)">one</a> <a href="JaVa&#x09;script:alert(1)">two</a> ' +
          '<a href="data:text/html,<b>x</b>">three</a> <a href="/relative">four</a> <a href="#top">five</a>',
      ),
      80,
    );
    expect(r.links).toEqual([]);
    expect(r.text).toBe('one two three four five');
    expect(r.text).not.toContain('javascript');
  });

  it('removes controls that entities decode to, in text, link text and URLs', () => {
    const r = renderBody(
      html(
        '<p>A&#27;[31mred&#27;[0m B&#x1b;]0;pwned&#7; C&#x1b;[2J D&#0; E&#x7f; F&#x202e;G ' +
          '<a href="https://x.example/&#27;[31m?a=1">li&#27;[1mnk</a></p>',
      ),
      80,
    );
    expect(isTerminalSafe(r.text)).toBe(true);
    expect(r.text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
    // &#0; is U+FFFD by the HTML standard: visible, harmless.
    expect(r.text).toContain('Ared B C D\ufffd E FG');
    expect(r.links).toHaveLength(1);
    expect(isTerminalSafe(r.links[0]!.url)).toBe(true);
    expect(isTerminalSafe(r.links[0]!.text)).toBe(true);
    expect(r.links[0]!.text).toBe('link');
  });

  it('shows C1 numeric references as the windows-1252 characters HTML defines, never as C1 controls', () => {
    const r = renderBody(html('<p>x&#x9b;2Jy &#155;1m z&#x90;q</p>'), 80);
    expect(isTerminalSafe(r.text)).toBe(true);
    expect(r.text).not.toMatch(/[\u0080-\u009f]/);
  });

  it('drops scripts, styles, head, hidden preheaders and images', () => {
    const r = renderBody(
      html(
        '<html><head><title>Title here</title><style>p{color:red}</style></head><body>' +
          '<div style="display: none; max-height:0">hidden preheader</div><script>alert("x")</script>' +
          '<noscript>enable js</noscript><img src="https://t.example/p.gif" alt="pixel"><p>Visible words</p></body></html>',
      ),
      80,
    );
    expect(r.text).toBe('Visible words');
  });

  it('renders the hostile HTML fixture with its words and without its script', () => {
    const eml = readFileSync(`${HOSTILE_DIR}/04-html-script.eml`, 'utf8');
    const body = eml.slice(eml.indexOf('\r\n\r\n') + 4);
    const r = renderBody(html(body), 80);
    expect(r.text).toContain('Welcome');
    expect(r.text).toContain('Confirm your account [1]');
    expect(r.text).not.toContain('alert');
    expect(r.links).toEqual([{ n: 1, url: 'https://example.test/confirm?t=abc', text: 'Confirm your account' }]);
  });

  it('renders every hostile fixture terminal-safe, through HTML and text alike', async () => {
    const dir = HOSTILE_DIR;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.eml'))) {
      const mail = await simpleParser(readFileSync(`${dir}/${file}`));
      const r = renderBody(
        { bodyHtml: typeof mail.html === 'string' ? mail.html : null, bodyText: mail.text ?? null },
        60,
      );
      expect(isTerminalSafe(r.text), file).toBe(true);
      for (const l of r.links) expect(isTerminalSafe(l.url + l.text), file).toBe(true);
    }
  });

  it('keeps table cells apart and headings in their case', () => {
    const r = renderBody(
      html(
        '<h1>Your Code</h1><table><tr><td>Code:</td><td><b>482913</b></td></tr><tr><td>Expires</td><td>10 min</td></tr></table>',
      ),
      80,
    );
    expect(r.text).toContain('Your Code');
    // Two rows of two cells: a data table, its columns lined up.
    expect(r.text).toContain('Code:    482913\nExpires  10 min');
  });

  it('wraps wide characters by columns and hard-breaks long words and URLs', () => {
    const cjk = '日本語のテキストがとても長い場合には正しく折り返されるべきです。'.repeat(3);
    const url = `https://example.com/${'a'.repeat(120)}`;
    for (const width of [20, 33, 80]) {
      const r = renderBody(
        html(`<p>${cjk}</p><p>${url}</p><p>emoji 😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀</p>`),
        width,
      );
      expect(maxWidth(r.text)).toBeLessThanOrEqual(width);
      expect(r.text.replace(/\n/g, '')).toContain(url);
      expect(r.text).not.toContain('\ufffd');
    }
  });

  it('never lets a link-list line exceed the width', () => {
    const long = `https://example.com/verify?token=${'x'.repeat(200)}`;
    const r = renderBody(html(`<a href="${long}">Verify</a>`), 30);
    expect(maxWidth(r.text)).toBeLessThanOrEqual(30);
    expect(r.text).toContain('[1] https://example.com/verify');
    expect(r.links[0]!.url).toBe(long);
  });
});

describe('renderBody from text', () => {
  it('falls back to body_text when there is no HTML, keeping line breaks', () => {
    const r = renderBody({ bodyHtml: '   ', bodyText: 'Hello,\n\nyour code is 123456.\n-- \nAcme' }, 80);
    expect(r.text).toBe('Hello,\n\nyour code is 123456.\n-- \nAcme');
    expect(r.links).toEqual([]);
  });

  it('wraps long lines and hard-breaks long words so no line exceeds the width', () => {
    const body = `${'word '.repeat(40)}\n${'x'.repeat(95)}\n日本語日本語日本語日本語日本語日本語`;
    const r = renderBody(text(body), 20);
    expect(maxWidth(r.text)).toBeLessThanOrEqual(20);
    expect(lines(r.text)).toContain('x'.repeat(20));
    expect(lines(r.text)).toContain('日本語日本語日本語日');
  });

  it('numbers the URLs of a text body in a list at the end', () => {
    const r = renderBody(
      text('Sign in: https://acme.example/magic?t=Zx9 (valid 15 min).\nOr mailto:help@acme.example.'),
      80,
    );
    expect(r.links.map((l) => l.url)).toEqual(['https://acme.example/magic?t=Zx9', 'mailto:help@acme.example']);
    expect(r.text).toMatch(/Links:\n\[1\] https:\/\/acme\.example\/magic\?t=Zx9\n\[2\] mailto:help@acme\.example$/);
  });

  it('falls back to body_text when the HTML part shows nothing', async () => {
    const input = {
      bodyHtml: '<html><body><img src="banner.png"><div hidden>x</div></body></html>',
      bodyText: 'Your code is 123456',
    };
    expect(renderBody(input, 80).text).toBe('Your code is 123456');
    expect((await renderBodyAsync(input, 80)).text).toBe('Your code is 123456');
  });

  it('makes text safe again and copes with no body at all', () => {
    expect(isTerminalSafe(renderBody(text('a\x1b[31mb\x07c\x9bd'), 80).text)).toBe(true);
    expect(renderBody({ bodyHtml: null, bodyText: null }, 80)).toEqual({ text: '', links: [] });
    expect(renderBody(text('tab\there'), 80).text).toBe('tab     here');
  });
});

describe('large bodies', () => {
  const big = newsletterHtml(2 * 1024 * 1024);

  it('renderBody stops at the cap with a visible note', () => {
    const r = renderBody(html(big), 80, { loadAllHint: 'press L to load all' });
    expect(r.truncated).toBeDefined();
    expect(r.truncated!.shownBytes).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(r.text).toMatch(/\[message truncated at \d+ KB of \d+ KB, press L to load all\]/);
    expect(maxWidth(r.text)).toBeLessThanOrEqual(80);
  });

  it('renderBodyAsync renders everything in slices, yielding to the event loop in between', async () => {
    let turns = 0;
    let running = true;
    const tick = () => {
      turns++;
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const r = await renderBodyAsync(html(big), 80);
    running = false;
    expect(r.truncated).toBeUndefined();
    expect(turns).toBeGreaterThan(big.length / SLICE_BYTES / 2);
    expect(r.text).not.toContain('truncated');
    expect(r.links.length).toBeGreaterThan(1000);
    expect(r.text).toContain('Unsubscribe [');
    expect(isTerminalSafe(r.text)).toBe(true);
    expect(maxWidth(r.text)).toBeLessThanOrEqual(80);
  });

  it('renderBodyAsync hands over the beginning first, once, then the whole', async () => {
    const seen: { partial: string; settledBefore: boolean }[] = [];
    let settled = false;
    const whole = renderBodyAsync(html(big), 80, undefined, (partial) => {
      expect(partial.partial).toBe(true);
      seen.push({ partial: partial.text, settledBefore: settled });
    });
    const r = await whole;
    settled = true;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.settledBefore).toBe(false);
    const partial = seen[0]!.partial;
    expect(partial.endsWith(PARTIAL_NOTE)).toBe(true);
    // The beginning of the whole, far less of it; safe and wrapped like it.
    const shown = partial.slice(0, -PARTIAL_NOTE.length).trimEnd();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(r.text.length / 10);
    expect(r.text.startsWith(shown.split('\n').slice(0, 20).join('\n'))).toBe(true);
    expect(isTerminalSafe(partial)).toBe(true);
    expect(maxWidth(partial)).toBeLessThanOrEqual(80);
    expect(r.partial).toBeUndefined();
    expect(r.text).not.toContain(PARTIAL_NOTE);
    // A message of one slice has nothing to hand over early.
    let calls = 0;
    await renderBodyAsync(html('<p>Short</p>'), 80, undefined, () => calls++);
    expect(calls).toBe(0);
  });

  it('renderBodyAsync gives the same result as renderBody for a small message, and can be aborted', async () => {
    const small = html('<p>Hi <a href="https://a.example/x">there</a></p>');
    expect(await renderBodyAsync(small, 60)).toEqual(renderBody(small, 60));
    const controller = new AbortController();
    const pending = renderBodyAsync(html(big), 80, controller.signal);
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});

describe('acceptUrl', () => {
  it('keeps http(s) and mailto only', () => {
    expect(acceptUrl('https://a.example/x?y=1')).toBe('https://a.example/x?y=1');
    expect(acceptUrl(' HTTP://A.example ')).toBe('HTTP://A.example');
    expect(acceptUrl('mailto:a@b.example')).toBe('mailto:a@b.example');
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      '/x',
      '#top',
      'https://',
      'java\nscript:x',
      '',
      42,
    ]) {
      expect(acceptUrl(bad)).toBeNull();
    }
  });
});
