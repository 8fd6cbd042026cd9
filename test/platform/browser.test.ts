/**
 * Opening links: which URLs may be opened, which opener a session has, and that the opener gets the URL as
 * exactly one argument with no shell in between (a recording stand-in for xdg-open on a temp PATH).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLink, findOpener, openInBrowser } from '../../src/platform/browser';
import { waitFor } from '../harness/wait';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A directory holding an executable `name` that writes its arguments (JSON) to `out`. */
function recordingTool(name: string): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'opener-'));
  dirs.push(dir);
  const out = join(dir, 'args.json');
  const script = `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`;
  writeFileSync(join(dir, name), script);
  chmodSync(join(dir, name), 0o755);
  return { dir, out };
}

describe('checkLink', () => {
  it('accepts http and https links, normalized by the URL parser', () => {
    expect(checkLink('https://example.com/confirm?token=abc123')).toBe('https://example.com/confirm?token=abc123');
    expect(checkLink('http://EXAMPLE.com')).toBe('http://example.com/');
    expect(checkLink('https://bücher.example/straße')).toBe('https://xn--bcher-kva.example/stra%C3%9Fe');
  });

  it('refuses other schemes, control and invisible characters, spaces and junk', () => {
    for (const bad of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'mailto:a@b.c',
      'ftp://example.com/x',
      '-https://example.com',
      'https://example.com/\x1b]52;c;eA==\x07',
      'https://example.com/a\nb',
      'https://example.com/\u009b2J',
      'https://example.com/\u202egpj.exe',
      'https://example.com/a b',
      'https://exa\u200bmple.com/',
      'https://',
      '',
      'x'.repeat(10_000),
    ]) {
      expect([bad, checkLink(bad)]).toEqual([bad, null]);
    }
    expect(checkLink(undefined)).toBeNull();
  });
});

describe('findOpener', () => {
  it('finds xdg-open only with a display, open on macOS, wslview on WSL, nothing on a bare SSH session', () => {
    const xdg = recordingTool('xdg-open');
    expect(findOpener({ PATH: xdg.dir }, 'linux')).toBeNull();
    expect(findOpener({ PATH: xdg.dir, DISPLAY: ':0' }, 'linux')?.name).toBe('xdg-open');
    expect(findOpener({ PATH: xdg.dir, WAYLAND_DISPLAY: 'wayland-0' }, 'linux')?.path).toBe(join(xdg.dir, 'xdg-open'));
    // A display but no opener on PATH.
    expect(findOpener({ PATH: '/nonexistent', DISPLAY: ':0' }, 'linux')).toBeNull();
    const mac = recordingTool('open');
    expect(findOpener({ PATH: mac.dir }, 'darwin')?.name).toBe('open');
    const wsl = recordingTool('wslview');
    expect(findOpener({ PATH: wsl.dir, WSL_DISTRO_NAME: 'Debian' }, 'linux')?.name).toBe('wslview');
  });
});

describe('openInBrowser', () => {
  it('passes the URL as one argument, with no shell: $(...) and ; stay text', async () => {
    const { dir, out } = recordingTool('xdg-open');
    const url = 'https://example.com/confirm?a=1&b=$(touch%20pwned);echo`id`';
    const result = await openInBrowser(url, { env: { PATH: dir, DISPLAY: ':0' }, platform: 'linux' });
    expect(result).toEqual({ opened: true, opener: 'xdg-open' });
    const args = await waitFor(() => {
      try {
        return JSON.parse(readFileSync(out, 'utf8')) as string[];
      } catch {
        return null;
      }
    });
    expect(args).toEqual([new URL(url).href]);
  });

  it('says why it did not open: unsafe link, no display, opener failing to start', async () => {
    const { dir } = recordingTool('xdg-open');
    expect(
      await openInBrowser('javascript:alert(1)', { env: { PATH: dir, DISPLAY: ':0' }, platform: 'linux' }),
    ).toEqual({
      opened: false,
      reason: 'unsafe',
    });
    expect(await openInBrowser('https://example.com/', { env: { PATH: dir }, platform: 'linux' })).toEqual({
      opened: false,
      reason: 'no-display',
    });
    // Executable but not runnable (a directory named like the tool would not pass X_OK; a bad interpreter does).
    const broken = mkdtempSync(join(tmpdir(), 'opener-'));
    dirs.push(broken);
    writeFileSync(join(broken, 'xdg-open'), '#!/nonexistent/interpreter\n');
    chmodSync(join(broken, 'xdg-open'), 0o755);
    const failed = await openInBrowser('https://example.com/', {
      env: { PATH: broken, DISPLAY: ':0' },
      platform: 'linux',
    });
    expect(failed).toMatchObject({ opened: false, reason: 'failed' });
  });
});
