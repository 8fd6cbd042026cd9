/**
 * A throwaway Dovecot IMAP server for tests, from Debian's `dovecot-imapd` package: its own config,
 * base_dir, state_dir, log, passwd-file and maildirs in a temp dir, listening on a free loopback port,
 * plain IMAP (tests use `"tls": "none"` on loopback, or STARTTLS with a test certificate). As root (CI)
 * its processes and mail run as the package's `dovecot` and `dovenull` users, in a dir they own;
 * otherwise everything runs as the test's own user.
 *
 * `dovecot -c FILE` daemonizes; its output is never captured (a pipe it keeps open would hang the call).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../wait.ts';

/** Where Debian installs the server binary; undefined when it is not installed. */
export function findDovecot(): string | undefined {
  for (const path of ['/usr/sbin/dovecot', '/usr/local/sbin/dovecot']) if (existsSync(path)) return path;
  return undefined;
}

export interface DovecotUser {
  name: string;
  password: string;
}

export interface DovecotOptions {
  users: DovecotUser[];
  /** false: the server does not offer IDLE (clients must poll). Default true. */
  idle?: boolean;
  /** A PEM certificate and key: the server offers STARTTLS with them. */
  tls?: { certFile: string; keyFile: string };
}

export interface Dovecot {
  host: string;
  /** Plain IMAP (STARTTLS offered when started with `tls`). */
  port: number;
  /** IMAP over TLS from the first byte (imaps), when started with `tls`. */
  tlsPort?: number;
  root: string;
  /** Starts the server again after stop(), on the same port and mail. */
  start(): Promise<void>;
  /** Stops the server (its mail stays). */
  stop(): Promise<void>;
  /** Stops it and removes everything. */
  remove(): Promise<void>;
  /** The server's log so far. */
  log(): string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port now. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function ids(name: string): { uid: number; gid: number } {
  return {
    uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()),
  };
}

/** The processes the master whose pid is in `pidFile` has started (none when it is not running). */
function masterChildren(pidFile: string): number[] {
  let master: number;
  try {
    master = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return [];
  }
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(master)], { encoding: 'utf8' }).stdout ?? '';
  return out
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((pid) => Number.isSafeInteger(pid) && pid > 0);
}

/** Writes the config and passwd-file into a new temp dir and starts the server. */
export async function startDovecot(options: DovecotOptions): Promise<Dovecot> {
  const bin = findDovecot();
  if (!bin) throw new Error('dovecot is not installed (apt-get install dovecot-imapd)');
  const asRoot = userInfo().uid === 0;
  const me = userInfo().username;
  const internal = asRoot ? 'dovecot' : me;
  const login = asRoot ? 'dovenull' : me;
  const mailOwner = asRoot ? ids('dovecot') : { uid: userInfo().uid, gid: userInfo().gid };
  const root = mkdtempSync(join(tmpdir(), 'tempmail-dovecot-'));
  chmodSync(root, 0o755);
  const mailDir = join(root, 'mail');
  mkdirSync(mailDir);
  if (asRoot) chownSync(mailDir, mailOwner.uid, mailOwner.gid);
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : undefined;
  const passwd = join(root, 'passwd');
  writeFileSync(
    passwd,
    options.users
      .map((u) => `${u.name}:{PLAIN}${u.password}:${mailOwner.uid}:${mailOwner.gid}::${join(mailDir, u.name)}::\n`)
      .join(''),
    { mode: 0o644 },
  );
  const config = join(root, 'dovecot.conf');
  const tls = options.tls;
  writeFileSync(
    config,
    `
base_dir = ${join(root, 'run')}
state_dir = ${join(root, 'state')}
log_path = ${join(root, 'dovecot.log')}
info_log_path = ${join(root, 'dovecot.log')}
protocols = imap
listen = 127.0.0.1
${tls ? `ssl = yes\nssl_cert = <${tls.certFile}\nssl_key = <${tls.keyFile}` : 'ssl = no'}
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_failure_delay = 0
default_internal_user = ${internal}
default_login_user = ${login}
first_valid_uid = ${mailOwner.uid}
last_valid_uid = ${mailOwner.uid}
first_valid_gid = ${mailOwner.gid}
mail_location = maildir:~/Maildir
${options.idle === false ? 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE SORT THREAD=REFERENCES MULTIAPPEND UNSELECT CHILDREN NAMESPACE UIDPLUS LIST-EXTENDED I18NLEVEL=1 ESEARCH SEARCHRES WITHIN CONTEXT=SEARCH LIST-STATUS BINARY MOVE SPECIAL-USE' : ''}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${passwd}
}
userdb {
  driver = passwd-file
  args = username_format=%u ${passwd}
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${tlsPort ?? 0}
  }
}
service anvil {
  chroot =
}
service imap-login {
  chroot =
}
namespace inbox {
  inbox = yes
  separator = /
  mailbox Junk {
    special_use = \\Junk
    auto = subscribe
  }
  mailbox Sent {
    special_use = \\Sent
    auto = subscribe
  }
}
`,
  );
  const start = async () => {
    execFileSync(bin, ['-c', config], { stdio: 'ignore' });
    await waitFor(() => accepting(port), { timeoutMs: 15_000, message: `dovecot to listen on 127.0.0.1:${port}` });
  };
  const stop = async () => {
    // `dovecot stop` ends the master, but a session process (imap) keeps its client's connection until
    // the client leaves: a server that goes down cuts them, so this one's are ended too, by pid.
    const children = masterChildren(join(root, 'run', 'master.pid'));
    try {
      execFileSync(bin, ['-c', config, 'stop'], { stdio: 'ignore' });
    } catch {
      // Not running.
    }
    for (const pid of children) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await waitFor(async () => !(await accepting(port)), { timeoutMs: 15_000, message: 'dovecot to stop listening' });
  };
  await start();
  return {
    host: '127.0.0.1',
    port,
    tlsPort,
    root,
    start,
    stop,
    async remove() {
      await stop();
      rmSync(root, { recursive: true, force: true });
    },
    log: () => {
      try {
        return readFileSync(join(root, 'dovecot.log'), 'utf8');
      } catch {
        return '';
      }
    },
  };
}
