import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_NAME_BYTES,
  numbered,
  replaceFile,
  safeFileName,
  uniquePath,
  writeFileIfNew,
  writeNewFile,
} from '../../src/state/download-files';
import { isTerminalSafe } from '../../src/text/safe-text';

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('safeFileName', () => {
  it('keeps an ordinary name as it is', () => {
    expect(safeFileName('invoice 2026-03.pdf')).toBe('invoice 2026-03.pdf');
    expect(safeFileName('Résumé – Anna.docx')).toBe('Résumé – Anna.docx');
    expect(safeFileName('写真.jpg')).toBe('写真.jpg');
  });

  it('never yields a path: traversal and separators of every platform', () => {
    expect(safeFileName('../../etc/passwd')).toBe('passwd');
    expect(safeFileName('..\\..\\Windows\\System32\\evil.dll')).toBe('evil.dll');
    expect(safeFileName('/etc/shadow')).toBe('shadow');
    expect(safeFileName('a/b/../')).toBe('b');
    expect(safeFileName('C:evil.bat')).toBe('C_evil.bat');
    for (const bad of ['..', '.', '../..', '/', '', '...', '  ', '\\']) expect(safeFileName(bad)).toBe('attachment');
  });

  it('removes NUL, control characters and escape sequences', () => {
    expect(safeFileName('evil\u0000.txt')).toBe('evil.txt');
    expect(safeFileName('\u001b[31mred\u001b[0m.txt')).toBe('red.txt');
    expect(safeFileName('title\u001b]0;pwned\u0007.txt')).toBe('title.txt');
    expect(safeFileName('a\u009b2Jb.txt')).toBe('ab.txt');
    expect(safeFileName('line\nbreak\r.txt')).toBe('line break.txt');
  });

  it('removes bidi overrides, so "txt.exe" cannot pose as "exe.txt"', () => {
    const name = safeFileName('invoice\u202Etxt.exe');
    expect(name).toBe('invoicetxt.exe');
    expect(safeFileName('a\u2066b\u2069\u200b\ufeffc.pdf')).toBe('abc.pdf');
  });

  it('no leading dots, no trailing dots or spaces, no Windows-forbidden characters', () => {
    expect(safeFileName('.bashrc')).toBe('bashrc');
    expect(safeFileName('...hidden.sh')).toBe('hidden.sh');
    expect(safeFileName('name. . ')).toBe('name');
    expect(safeFileName('a<b>c:d"e|f?g*h.txt')).toBe('a_b_c_d_e_f_g_h.txt');
  });

  it('renames reserved Windows device names whatever the case or extension', () => {
    expect(safeFileName('CON')).toBe('_CON');
    expect(safeFileName('con.txt')).toBe('_con.txt');
    expect(safeFileName('lpt1.tar.gz')).toBe('_lpt1.tar.gz');
    expect(safeFileName('Com9.foo.txt')).toBe('_Com9.foo.txt');
    expect(safeFileName('console.txt')).toBe('console.txt');
  });

  it('cuts a very long name to 200 bytes of UTF-8, keeping the extension and whole characters', () => {
    const long = safeFileName(`${'a'.repeat(500)}.pdf`);
    expect(bytes(long)).toBe(MAX_NAME_BYTES);
    expect(long.endsWith('.pdf')).toBe(true);
    const wide = safeFileName(`${'日本'.repeat(200)}.txt`);
    expect(bytes(wide)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(wide).toMatch(/^(日本)+日?\.txt$/);
    const emoji = safeFileName(`${'👩‍👩‍👧'.repeat(40)}.png`);
    expect(bytes(emoji)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(emoji).toMatch(/^(👩‍👩‍👧)+\.png$/u);
    expect(safeFileName(`x.${'y'.repeat(300)}`).length).toBeLessThanOrEqual(MAX_NAME_BYTES);
  });

  it('is terminal-safe for the hostile and the random', () => {
    const samples = [
      '\u001bP+q\u001b\\x',
      '\u0085\u009d8;;http://x\u009c',
      `${'\u202e'.repeat(10)}gpj.exe`,
      String.fromCharCode(...Array.from({ length: 64 }, (_, i) => i)),
    ];
    for (const s of samples) {
      const out = safeFileName(s);
      expect(isTerminalSafe(out)).toBe(true);
      expect(out).not.toMatch(/[/\\]/);
      expect(out.length).toBeGreaterThan(0);
    }
    expect(safeFileName(undefined)).toBe('attachment');
  });
});

describe('uniquePath and writeNewFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tempmail-names-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('numbers name (1).ext, name (2).ext ... and never returns an existing path', () => {
    expect(uniquePath(dir, 'a.pdf')).toBe(join(dir, 'a.pdf'));
    writeFileSync(join(dir, 'a.pdf'), '0');
    expect(uniquePath(dir, 'a.pdf')).toBe(join(dir, 'a (1).pdf'));
    writeFileSync(join(dir, 'a (1).pdf'), '1');
    expect(uniquePath(dir, 'a.pdf')).toBe(join(dir, 'a (2).pdf'));
    expect(uniquePath(dir, '../../a.pdf')).toBe(join(dir, 'a (2).pdf'));
    expect(numbered('archive.tar.gz', 3)).toBe('archive (3).tar.gz');
    expect(numbered('README', 1)).toBe('README (1)');
  });

  it('keeps a numbered long name within the limit', () => {
    const name = safeFileName(`${'b'.repeat(400)}.zip`);
    const n = numbered(name, 12);
    expect(bytes(n)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(n.endsWith(' (12).zip')).toBe(true);
  });

  it('writes new files without ever overwriting, mode 0600', () => {
    const first = writeNewFile(dir, '../report.pdf', Buffer.from('one'));
    const second = writeNewFile(dir, 'report.pdf', Buffer.from('two'));
    expect(basename(first)).toBe('report.pdf');
    expect(basename(second)).toBe('report (1).pdf');
    expect(readFileSync(first, 'utf8')).toBe('one');
    expect(readFileSync(second, 'utf8')).toBe('two');
    expect(statSync(second).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).sort()).toEqual(['report (1).pdf', 'report.pdf']);
  });

  it('writeFileIfNew takes only the exact safe name: null when anything has it, a dangling link too', () => {
    expect(writeFileIfNew(dir, '../notes.txt', Buffer.from('one'))).toBe(join(dir, 'notes.txt'));
    expect(writeFileIfNew(dir, 'notes.txt', Buffer.from('two'))).toBeNull();
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('one');
    symlinkSync(join(dir, 'nowhere'), join(dir, 'link.txt'));
    expect(writeFileIfNew(dir, 'link.txt', Buffer.from('x'))).toBeNull();
    expect(() => lstatSync(join(dir, 'nowhere'))).toThrow();
  });

  it('replaceFile swaps the file whole (0600, a new inode, no temp left) and never writes through a link', () => {
    writeFileSync(join(dir, 'report.pdf'), 'old', { mode: 0o644 });
    const inode = statSync(join(dir, 'report.pdf')).ino;
    expect(replaceFile(dir, '../../report.pdf', Buffer.from('new'))).toBe(join(dir, 'report.pdf'));
    expect(readFileSync(join(dir, 'report.pdf'), 'utf8')).toBe('new');
    expect(statSync(join(dir, 'report.pdf')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'report.pdf')).ino).not.toBe(inode);

    const outside = mkdtempSync(join(tmpdir(), 'tempmail-outside-'));
    try {
      writeFileSync(join(outside, 'target'), 'keep me');
      symlinkSync(join(outside, 'target'), join(dir, 'linked.pdf'));
      replaceFile(dir, 'linked.pdf', Buffer.from('new'));
      expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('keep me');
      expect(lstatSync(join(dir, 'linked.pdf')).isFile()).toBe(true);
      expect(readdirSync(outside)).toEqual(['target']);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }

    mkdirSync(join(dir, 'folder.pdf'));
    expect(() => replaceFile(dir, 'folder.pdf', Buffer.from('x'))).toThrow(/EISDIR/);
    expect(readdirSync(dir).sort()).toEqual(['folder.pdf', 'linked.pdf', 'report.pdf']);
  });
});
