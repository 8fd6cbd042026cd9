/**
 * OSC 8 hyperlinks (src/text/hyperlink.ts): a stranger's URL goes into the escape sequence only as
 * printable ASCII (no ESC, BEL or C1 control can end it or start another), only for http(s), never past
 * the length terminals keep; the link takes no columns of its own, wherever its URI has characters.
 */
import { describe, expect, it } from 'vitest';
import { HYPERLINK_END, hyperlink, hyperlinkUri } from '../../src/text/hyperlink';
import terminalWidth from '../../src/text/terminal-width';
import { fitToWidth } from '../../src/text/text-width';

const OPEN = /^\x1b\]8;id=[a-z0-9]+;([\x21-\x7e]+)\x1b\\/;

describe('hyperlink', () => {
  it('puts the URL in as printable ASCII: controls, C1, spaces and letters beyond ASCII percent-encoded', () => {
    const url = 'https://example.org/a b?x=\x1b]52;c;cHduZWQ=\x07&y=\u009b31m\u009c&z=café#\u0085top';
    const linked = hyperlink(url, 'Confirm');
    const uri = OPEN.exec(linked)?.[1];
    expect(uri).toBe('https://example.org/a%20b?x=%1B]52;c;cHduZWQ=%07&y=%C2%9B31m%C2%9C&z=caf%C3%A9#%C2%85top');
    expect(linked.slice(OPEN.exec(linked)![0].length)).toBe(`Confirm${HYPERLINK_END}`);
    expect(hyperlinkUri('https://bücher.example/')).toBe('https://xn--bcher-kva.example/');
  });

  it('links only http(s) URLs no longer than terminals keep; any other stays text', () => {
    for (const url of [
      'javascript:alert(1)',
      'mailto:a@b.example',
      'file:///etc/passwd',
      'not a url',
      `https://example.org/${'a'.repeat(2100)}`,
    ]) {
      expect(hyperlink(url, 'text')).toBe('text');
    }
    expect(hyperlink('https://example.org/', '   ')).toBe('   ');
  });

  it('keeps the padding of a row outside the link', () => {
    const row = fitToWidth('[1] https://example.org/', 30);
    const linked = hyperlink('https://example.org/', row);
    expect(linked.endsWith(`${HYPERLINK_END}      `)).toBe(true);
  });

  it('takes the columns of its text alone, whatever its URI holds (Node 22 measured the URI as text)', () => {
    const text = '[1] https://example.org/p?a=1+2,3';
    const linked = hyperlink("https://example.org/p?a=1+2,3&b=(x)!*'$;~", text);
    expect(linked).not.toBe(text);
    expect(terminalWidth(linked)).toBe(terminalWidth(text));
  });
});
