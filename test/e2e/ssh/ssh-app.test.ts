/**
 * `ssh -p N host` with the real OpenSSH client in tmux: the app's first frame, keys, a resize, quitting;
 * a key's addresses are its own (another key does not see them) and come back when it connects again;
 * without a key, a fresh address and nothing listed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendMail } from '../../harness/service';
import { waitFor } from '../../harness/wait';
import { newKey, startSshServe, tmuxSsh, type SshServe, type TmuxSsh } from './ssh-harness';

let serve: SshServe;
let alice: string;
let bob: string;
const open: TmuxSsh[] = [];

beforeAll(async () => {
  serve = await startSshServe();
  alice = newKey(serve.dir, 'alice');
  bob = newKey(serve.dir, 'bob');
}, 30_000);

// A key holds at most 5 app sessions at once (sshSessionsPerKey): each test's go when it ends.
afterEach(() => {
  for (const t of open.splice(0)) t.close();
});

afterAll(async () => {
  await serve?.stop();
});

function connect(key: string | undefined, options: Parameters<typeof tmuxSsh>[2] = {}): TmuxSsh {
  const t = tmuxSsh(serve.sshPort, key, options);
  open.push(t);
  return t;
}

/** Creates a random address in the picker; returns it. */
async function createAddress(t: TmuxSsh): Promise<string> {
  const picker = await t.waitForScreen('Random address on tempmail.test');
  const line = picker.split('\n').find((l) => l.includes('Random address on tempmail.test'))!;
  t.keys(/(\d) Random/.exec(line)![1]!);
  const inbox = await t.waitForScreen(/^(\S+@tempmail\.test)\s+expires in/m);
  return /^(\S+@tempmail\.test)\s+expires in/m.exec(inbox)![1]!;
}

describe('ssh opens the app', () => {
  it('draws the first frame in the client terminal, takes keys, follows a resize and quits on q', async () => {
    const t = connect(alice, { cols: 100, rows: 30 });
    const first = await t.waitForScreen('choose an address');
    // The frame starts on the first row: each row of Ink's frame began at column 1 (CR LF, not LF alone).
    expect(first.split('\n')[0]).toContain('tempmail-tui');
    expect(first).toContain('Service: this SSH host');
    const address = await createAddress(t);
    const wide = t.screen().split('\n')[0]!;
    expect(wide.trimEnd().length).toBeGreaterThan(80);
    t.resize(60, 20);
    const narrow = await t.waitForScreen(/^\S+@tempmail\.test\s+expires in/m);
    expect(narrow.split('\n')[0]!.trimEnd().length).toBeLessThanOrEqual(60);
    expect(narrow.split('\n')[0]).toContain(address);
    t.keys('q');
    await t.waitForScreen(/^\s*$/);
  });

  it("gives each key its own addresses, and the same key's again when it reconnects", async () => {
    const first = connect(alice);
    const mine = await createAddress(first);
    first.keys('q');
    const other = connect(bob);
    const seen = await other.waitForScreen('Random address on tempmail.test');
    expect(seen).not.toContain(mine);
    const again = connect(alice);
    await again.waitForScreen(`Resume ${mine}`);
  });

  it('draws in colour, and without when the client sends NO_COLOR or TERM is dumb', async () => {
    const colored = connect(alice);
    await colored.waitForScreen('choose an address');
    // tmux writes a colour as SGR 3x (or 9x for bright ones).
    expect(colored.styled()).toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
    const plain = connect(alice, { env: { NO_COLOR: '1' } });
    await plain.waitForScreen('choose an address');
    expect(plain.styled()).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
    const dumb = connect(alice, { term: 'dumb' });
    await dumb.waitForScreen('choose an address');
    expect(dumb.styled()).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
  });

  it('draws two sessions open at once each for its own terminal (size, colour)', async () => {
    const wide = connect(alice, { cols: 120, rows: 40 });
    const narrow = connect(bob, { cols: 50, rows: 15, env: { NO_COLOR: '1' } });
    await Promise.all([wide.waitForScreen('choose an address'), narrow.waitForScreen('choose an address')]);
    await Promise.all([createAddress(wide), createAddress(narrow)]);
    const w = wide.screen().split('\n');
    const n = narrow.screen().split('\n');
    // Each header spans its own width; the footer sits on its own last rows.
    expect(w[0]!.trimEnd().length).toBeGreaterThan(100);
    expect(n[0]!.trimEnd().length).toBeLessThanOrEqual(50);
    expect(w.slice(30).join('\n')).toContain('q quit');
    expect(n.slice(10, 15).join('\n')).toContain('quit');
    expect(wide.styled()).toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
    expect(narrow.styled()).not.toMatch(/\x1b\[(?:[0-9;]*;)?(?:3[1-7]|9[0-7])m/);
  });

  it('says what to do instead of saving an attachment, shows a link it cannot open, and ignores Ctrl-Z', async () => {
    const t = connect(alice, { cols: 200, rows: 30 });
    const address = await createAddress(t);
    await sendMail(serve, {
      to: address,
      subject: 'With a file',
      text: 'See https://example.org/confirm?x=1',
      attachments: [{ filename: 'notes.txt', content: 'hello' }],
    });
    await t.waitForScreen('With a file');
    t.keys('Enter');
    await t.waitForScreen('notes.txt');
    t.keys('a');
    await t.waitForScreen('Attachments are not saved over SSH');
    t.keys('1', 'o');
    await t.waitForScreen(/not opened \(no display\), shown above and sent to your terminal via OSC 52/);
    t.keys('C-z');
    t.keys('Escape');
    await t.waitForScreen(/q quit/);
  });

  it("o shows the link as a hyperlink the client's terminal opens (OSC 8, made safe) and copies it there (OSC 52)", async () => {
    const t = connect(alice, { cols: 200, rows: 30, record: true });
    const address = await createAddress(t);
    // A stranger's href: an escape sequence inside (taken out by the mail's reader), a non-ASCII letter,
    // and a plus that must reach the browser as it is.
    const href = 'https://example.org/confirm?t=a+b&amp;x=&#27;]52;c;cHduZWQ=&#7;caf&#xe9;';
    await sendMail(serve, { to: address, subject: 'Confirm here', html: `<p><a href="${href}">Confirm</a></p>` });
    await t.waitForScreen('Confirm here');
    t.keys('Enter');
    await t.waitForScreen('Confirm [1]');
    t.keys('1', 'o');
    await t.waitForScreen(/Link 1 not opened \(no display\), shown above and sent to your terminal via OSC 52/);
    const shown = 'https://example.org/confirm?t=a+b&x=café';
    expect(t.screen()).toContain(`[1] ${shown}`);
    const raw = t.raw();
    const uris = [...raw.matchAll(/\x1b\]8;([^;\x07\x1b]*);([^\x07\x1b]+)\x1b\\/g)].map((m) => m[2]);
    expect(uris.length).toBeGreaterThan(0);
    for (const uri of uris) expect(uri).toBe('https://example.org/confirm?t=a+b&x=caf%C3%A9');
    // Every link the frame opened it also closed.
    expect(raw.split('\x1b]8;;\x1b\\').length - 1).toBe(uris.length);
    const copied = /\x1b\]52;c;([A-Za-z0-9+/=]+)\x07/.exec(raw)?.[1];
    expect(Buffer.from(copied ?? '', 'base64').toString('utf8')).toBe(shown);
  });

  it('refuses a sixth app session of one key with a line (and logs it), and takes it once one closes', async () => {
    const five = [1, 2, 3, 4, 5].map(() => connect(bob));
    for (const t of five) await t.waitForScreen('choose an address');
    const sixth = connect(bob);
    await sixth.waitForScreen('too many sessions open with this key');
    await waitFor(() => /ssh refused 127\.0\.0\.1: too-many-sessions-for-key/.test(serve.stderr()) || undefined, {
      timeoutMs: 5000,
      message: 'the refusal in the log',
    });
    five[0]!.close();
    await connect(bob).waitForScreen('choose an address');
  });

  it('gives a client without a key a fresh address, listed to nobody', async () => {
    const anonymous = connect(undefined);
    const picker = await anonymous.waitForScreen('Random address on tempmail.test');
    expect(picker).not.toContain('Resume');
  });
});
