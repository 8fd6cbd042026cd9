import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyToClipboard, findClipboardTool, osc52, OSC52_MAX_BASE64 } from '../../src/platform/clipboard';

const ESC = '\x1b';
const BEL = '\x07';

let bin: string;
beforeEach(() => {
  bin = mkdtempSync(join(tmpdir(), 'tempmail-clip-'));
});
afterEach(() => rmSync(bin, { recursive: true, force: true }));

/** A real executable named `name` in `bin`: a shell script that copies its stdin and argv to files. */
function fakeTool(name: string, body = 'cat > "$CLIP_OUT"; printf "%s\\n" "$@" > "$CLIP_ARGS"'): void {
  const file = join(bin, name);
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
}

describe('osc52', () => {
  it('builds ESC ] 52 ; c ; base64 BEL, exactly', () => {
    expect(osc52('hello')).toBe(`${ESC}]52;c;aGVsbG8=${BEL}`);
    expect(osc52('hello', { st: true })).toBe(`${ESC}]52;c;aGVsbG8=${ESC}\\`);
  });

  it('encodes UTF-8', () => {
    const seq = osc52('anna+ü@mail.test');
    const b64 = /52;c;([A-Za-z0-9+/=]+)\x07$/.exec(seq)![1]!;
    expect(Buffer.from(b64, 'base64').toString('utf8')).toBe('anna+ü@mail.test');
    expect(b64).toBe(Buffer.from('anna+ü@mail.test').toString('base64'));
  });

  it('under tmux sends it plain (for set-clipboard) and wrapped for passthrough with every inner ESC doubled', () => {
    expect(osc52('hello', { tmux: true })).toBe(
      `${ESC}]52;c;aGVsbG8=${BEL}${ESC}Ptmux;${ESC}${ESC}]52;c;aGVsbG8=${BEL}${ESC}\\`,
    );
    expect(osc52('hello', { tmux: true, st: true })).toBe(
      `${ESC}]52;c;aGVsbG8=${ESC}\\${ESC}Ptmux;${ESC}${ESC}]52;c;aGVsbG8=${ESC}${ESC}\\${ESC}\\`,
    );
  });

  it('wraps for GNU screen in chunks of 76', () => {
    const text = 'x'.repeat(120);
    const b64 = Buffer.from(text).toString('base64');
    expect(b64.length).toBe(160);
    expect(osc52(text, { screen: true })).toBe(
      `${ESC}P${ESC}]52;c;${b64.slice(0, 76)}${ESC}\\${ESC}P${b64.slice(76, 152)}${ESC}\\${ESC}P${b64.slice(152)}${BEL}${ESC}\\`,
    );
  });

  it('refuses a payload past the cap', () => {
    const limitText = 'a'.repeat((OSC52_MAX_BASE64 / 4) * 3);
    expect(osc52(limitText).length).toBe(OSC52_MAX_BASE64 + 8);
    expect(() => osc52(`${limitText}abc`)).toThrow(RangeError);
  });
});

describe('findClipboardTool', () => {
  it('needs a display and the tool on PATH', () => {
    fakeTool('xclip');
    expect(findClipboardTool({ PATH: bin }, 'linux')).toBeNull();
    expect(findClipboardTool({ PATH: bin, DISPLAY: ':0' }, 'linux')).toEqual({
      name: 'xclip',
      path: join(bin, 'xclip'),
      args: ['-selection', 'clipboard'],
    });
    expect(findClipboardTool({ PATH: '/nonexistent', DISPLAY: ':0' }, 'linux')).toBeNull();
  });

  it('prefers wl-copy on Wayland, falls back to xsel, finds pbcopy and clip.exe', () => {
    fakeTool('wl-copy');
    fakeTool('xsel');
    fakeTool('pbcopy');
    fakeTool('clip.exe');
    expect(findClipboardTool({ PATH: bin, WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, 'linux')?.name).toBe(
      'wl-copy',
    );
    expect(findClipboardTool({ PATH: bin, DISPLAY: ':0' }, 'linux')?.name).toBe('xsel');
    expect(findClipboardTool({ PATH: bin }, 'darwin')?.name).toBe('pbcopy');
    expect(findClipboardTool({ PATH: bin, WSL_DISTRO_NAME: 'Ubuntu' }, 'linux')?.name).toBe('clip.exe');
  });
});

describe('copyToClipboard', () => {
  it('writes OSC 52 and feeds a real xclip process on stdin, not argv', async () => {
    fakeTool('xclip');
    const out = join(bin, 'clip.out');
    const args = join(bin, 'clip.args');
    const written: string[] = [];
    const text = 'quiet-otter-4821@tempmail.test';
    const result = await copyToClipboard(text, {
      write: (s) => written.push(s),
      env: { PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ':99', CLIP_OUT: out, CLIP_ARGS: args },
      platform: 'linux',
    });
    expect(result).toEqual({
      ok: true,
      message: 'Copied with xclip; also sent via OSC 52',
      osc52: true,
      tool: 'xclip',
    });
    expect(written).toEqual([`${ESC}]52;c;${Buffer.from(text).toString('base64')}${BEL}`]);
    expect(readFileSync(out, 'utf8')).toBe(text);
    expect(readFileSync(args, 'utf8')).toBe('-selection\nclipboard\n');
  });

  it('says OSC 52 was sent, not that it copied, when there is no local tool', async () => {
    const written: string[] = [];
    const result = await copyToClipboard('123456', {
      write: (s) => written.push(s),
      env: { PATH: bin },
      platform: 'linux',
    });
    expect(result).toEqual({
      ok: true,
      message: 'Sent to the terminal via OSC 52 (no local clipboard tool)',
      osc52: true,
      tool: null,
    });
    expect(written).toEqual([`${ESC}]52;c;MTIzNDU2${BEL}`]);
  });

  it('inside tmux with no tmux command, wraps for tmux and says tmux may drop it', async () => {
    const written: string[] = [];
    const result = await copyToClipboard('123456', {
      write: (s) => written.push(s),
      env: { PATH: bin, TMUX: '/tmp/tmux-0/default,1,0' },
      platform: 'linux',
    });
    expect(result).toEqual({
      ok: true,
      message: 'Sent to the terminal via OSC 52; tmux may need set-clipboard on',
      osc52: true,
      tool: null,
    });
    expect(written[0]).toBe(`${ESC}]52;c;MTIzNDU2${BEL}${ESC}Ptmux;${ESC}${ESC}]52;c;MTIzNDU2${BEL}${ESC}\\`);
  });

  it('reports a failing tool and a hanging one without throwing', async () => {
    fakeTool('xclip', 'exit 3');
    const failed = await copyToClipboard('x', {
      write: () => undefined,
      env: { PATH: bin, DISPLAY: ':0' },
      platform: 'linux',
    });
    expect(failed.message).toBe('Sent to the terminal via OSC 52 (xclip failed: exit 3)');
    fakeTool('xclip', 'exec sleep 30');
    const hung = await copyToClipboard('x', {
      write: () => undefined,
      env: { PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ':0' },
      platform: 'linux',
      timeoutMs: 300,
    });
    expect(hung.message).toBe('Sent to the terminal via OSC 52 (xclip failed: timed out)');
  });

  it('falls back to the tool alone for a text too long for OSC 52', async () => {
    fakeTool('xclip');
    const out = join(bin, 'big.out');
    const big = 'y'.repeat(200_000);
    const written: string[] = [];
    const result = await copyToClipboard(big, {
      write: (s) => written.push(s),
      env: { PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ':0', CLIP_OUT: out, CLIP_ARGS: join(bin, 'a') },
      platform: 'linux',
    });
    expect(written).toEqual([]);
    expect(result).toEqual({
      ok: true,
      message: 'Copied with xclip (too long for OSC 52)',
      osc52: false,
      tool: 'xclip',
    });
    expect(readFileSync(out, 'utf8')).toBe(big);
    const none = await copyToClipboard(big, { write: () => undefined, env: { PATH: bin }, platform: 'linux' });
    expect(none).toMatchObject({ ok: false, message: 'Not copied: too long for OSC 52 and no local clipboard tool' });
  });

  it('survives a write that throws (a closed terminal)', async () => {
    const result = await copyToClipboard('x', {
      write: () => {
        throw new Error('EPIPE');
      },
      env: { PATH: bin },
      platform: 'linux',
    });
    expect(result.ok).toBe(false);
    expect(result.message).toBe('Not copied: the terminal could not be written and no local clipboard tool');
  });
});

describe('inside tmux (a real tmux server on a private socket)', () => {
  let dir: string;
  let sock: string;
  let tmuxEnv: string;
  const TMUX_BIN = execFileSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).trim();
  const tmux = (...args: string[]) => execFileSync(TMUX_BIN, ['-S', sock, ...args], { encoding: 'utf8' });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tempmail-tmux-'));
    sock = join(dir, 'sock');
    tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'clip', 'sleep 600');
    tmuxEnv = `${sock},${tmux('display-message', '-p', '#{pid}').trim()},0`;
  });
  afterEach(() => {
    tmux('kill-server');
    rmSync(dir, { recursive: true, force: true });
  });

  it("copies into tmux's own buffer, the text on stdin, never in argv", async () => {
    // tmux itself, behind a shim that records how it was called.
    fakeTool('tmux', `printf "%s\\n" "$@" >> "$CLIP_ARGS"; exec ${TMUX_BIN} "$@"`);
    const args = join(bin, 'tmux.args');
    const written: string[] = [];
    const text = 'quiet-otter-4821@tempmail.test';
    const result = await copyToClipboard(text, {
      write: (s) => written.push(s),
      env: { PATH: `${bin}:/usr/bin:/bin`, TMUX: tmuxEnv, CLIP_ARGS: args },
      platform: 'linux',
    });
    expect(result).toEqual({
      ok: true,
      message: "Copied to tmux's buffer; also sent via OSC 52",
      osc52: true,
      tool: 'tmux',
    });
    expect(tmux('show-buffer')).toBe(text);
    expect(readFileSync(args, 'utf8')).toBe('load-buffer\n-w\n-\n');
    // OSC 52 is still written, both ways tmux may take it.
    expect(written[0]).toContain(`${ESC}Ptmux;`);
  });

  it('falls back to load-buffer without -w for a tmux older than 3.2', async () => {
    fakeTool('tmux', `[ "$2" = "-w" ] && { echo "unknown flag -w" >&2; exit 1; }; exec ${TMUX_BIN} "$@"`);
    const result = await copyToClipboard('482913', {
      write: () => undefined,
      env: { PATH: `${bin}:/usr/bin:/bin`, TMUX: tmuxEnv },
      platform: 'linux',
    });
    expect(result.message).toBe("Copied to tmux's buffer; also sent via OSC 52");
    expect(tmux('show-buffer')).toBe('482913');
  });

  it('says tmux may need set-clipboard when its buffer cannot be reached', async () => {
    const result = await copyToClipboard('482913', {
      write: () => undefined,
      env: { PATH: `${bin}:/usr/bin:/bin`, TMUX: `${join(dir, 'no-such-sock')},1,0` },
      platform: 'linux',
    });
    expect(result).toEqual({
      ok: true,
      message: 'Sent to the terminal via OSC 52; tmux may need set-clipboard on',
      osc52: true,
      tool: null,
    });
  });
});
