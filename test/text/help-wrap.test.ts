/**
 * fitHelp: the --help texts fitted to a width (issue 37.4). Every word is kept, in order; an option's
 * description hangs under its own column; a usage line's options hang under the first one and are not
 * broken inside their brackets; a line that fits is kept as written (aligned tables keep their columns).
 */
import { describe, expect, it } from 'vitest';
import { fitHelp, helpWidth } from '../../src/text/help-wrap';

const HELP = `Usage: tempmail-tui wait [--address A] [--from REGEX] [--subject REGEX] [--timeout SECONDS]
                         [--print code|link|text|json] [--existing]

Blocks until a new message matching the filters reaches the newest saved address (or A), then prints
its verification code.
Options:
  --timeout SECONDS     give up after this long, exit 1 (default 300; 0 = until the address expires)
  --existing            also consider messages already in the inbox (default: only new ones), a
                        second line of the same description
  --smtp-connections-per-client N
                              SMTP connections at once from one client (default: a tenth of --max)
  GET  /health                       ok (200)
`;

const words = (text: string) => text.split(/\s+/).filter(Boolean);

describe('fitHelp', () => {
  it('keeps every word in order, and no line passes the width', () => {
    for (const width of [80, 60, 40]) {
      const fitted = fitHelp(HELP, width);
      expect(words(fitted), `width ${width}`).toEqual(words(HELP));
      expect(
        fitted.split('\n').filter((l) => l.length > width),
        `width ${width}`,
      ).toEqual([]);
      expect(fitted.endsWith('\n')).toBe(true);
    }
  });

  it('cuts a word longer than a whole line, and only such a word', () => {
    const fitted = fitHelp(HELP, 30);
    expect(fitted.split('\n').filter((l) => l.length > 30)).toEqual([]);
    expect(fitted).toContain('  --smtp-connections-per-clien\n');
    // Nothing is lost: the same characters, only the spaces and line breaks between them differ.
    expect(fitted.replace(/\s+/g, '')).toBe(HELP.replace(/\s+/g, ''));
  });

  it("hangs an option's description, continuation lines included, under its column", () => {
    const fitted = fitHelp(HELP, 60).split('\n');
    const at = fitted.findIndex((l) => l.startsWith('  --existing'));
    expect(fitted.slice(at, at + 4)).toEqual([
      '  --existing            also consider messages already in',
      '                        the inbox (default: only new ones),',
      '                        a second line of the same',
      '                        description',
    ]);
  });

  it("hangs a usage line's options under the first, each bracket whole", () => {
    expect(fitHelp(HELP, 60).split('\n').slice(0, 4)).toEqual([
      'Usage: tempmail-tui wait [--address A] [--from REGEX]',
      '                         [--subject REGEX]',
      '                         [--timeout SECONDS]',
      '                         [--print code|link|text|json]',
    ]);
  });

  it('keeps a line that fits as written, and a paragraph ends at a sentence or a heading', () => {
    const fitted = fitHelp(HELP, 80).split('\n');
    expect(fitted).toContain('  GET  /health                       ok (200)');
    expect(
      fitted.filter((l) => l.endsWith('its verification code.') || l.endsWith('(or A), then prints')),
    ).toHaveLength(1);
    expect(fitted).toContain('Options:');
  });

  it('puts a description under its name when too little room is left beside it', () => {
    const fitted = fitHelp(HELP, 40).split('\n');
    const at = fitted.indexOf('  --smtp-connections-per-client N');
    expect(at).toBeGreaterThan(0);
    expect(fitted[at + 1]).toMatch(/^ {6}SMTP connections at once/);
    const get = fitted.indexOf('  GET  /health');
    expect(fitted.slice(get, get + 2)).toEqual(['  GET  /health', '      ok (200)']);
  });

  it("is 80 columns wide off a terminal, and the terminal's width on one", () => {
    expect(helpWidth({ isTTY: false, columns: 120 })).toBe(80);
    expect(helpWidth({})).toBe(80);
    expect(helpWidth({ isTTY: true, columns: 60 })).toBe(60);
  });
});
