/**
 * A throwaway PostgreSQL cluster for tests and the bench (bench/figures/postgres.ts), from Debian's `postgresql` package: initdb and pg_ctl into a
 * temp dir, listening on a unix socket in that dir and on a free loopback port. As root (CI) every
 * server command runs as the `postgres` user (initdb refuses root), in a dir that user owns.
 *
 * Local connections (the socket) trust the OS user; loopback TCP asks for a password (scram), so a test
 * can show a password reaching the database without reaching argv or a log. One cluster serves a whole
 * test run (global-setup.ts); tests that stop or restart the database start their own. Nothing here
 * depends on vitest, so the bench imports it as it is.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** The role loopback TCP connections log in as, and its password. */
export const TCP_USER = 'tempmail_tcp';
export const TCP_PASSWORD = 'Tcp-Secret-7f3a9c';

/** Where a running test cluster is: serializable, so the global setup can hand it to test workers. */
export interface ClusterInfo {
  bin: string;
  root: string;
  dataDir: string;
  /** The unix socket directory (also the host of a socket URL). */
  socketDir: string;
  port: number;
  /** The OS user the server runs as ('' = the test process's own). */
  runAs: string;
  /** fsync and full-page writes on (the bench: durability costs are real); off for tests. */
  durable: boolean;
}

/**
 * The directory holding initdb and pg_ctl: PG_BIN when set (and only there), else the newest
 * /usr/lib/postgresql/N/bin, else PATH; undefined when none.
 */
export function findPostgresBin(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PG_BIN) return existsSync(join(env.PG_BIN, 'initdb')) ? env.PG_BIN : undefined;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  const found = which.status === 0 ? which.stdout.trim() : '';
  return found ? found.slice(0, found.lastIndexOf('/')) : undefined;
}

/** A free loopback TCP port (closed again before the server binds it). */
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

/** Runs a server binary of `info` as its user; throws with its output when it fails. */
function run(info: Pick<ClusterInfo, 'bin' | 'runAs'>, tool: string, args: string[]): string {
  const command = join(info.bin, tool);
  const [file, argv] = info.runAs ? ['runuser', ['-u', info.runAs, '--', command, ...args]] : [command, args];
  try {
    return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${tool} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}

/**
 * initdb + start a new cluster; the caller stops it with stopCluster. `durable` keeps PostgreSQL's own
 * defaults (fsync, full-page writes) instead of the tests' shortcuts.
 */
export async function startCluster(bin: string, options: { durable?: boolean } = {}): Promise<ClusterInfo> {
  const runAs = userInfo().uid === 0 ? 'postgres' : '';
  const root = mkdtempSync(join(tmpdir(), 'tempmail-pg-'));
  if (runAs) {
    const uid = Number(execFileSync('id', ['-u', runAs], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', runAs], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const info: ClusterInfo = {
    bin,
    root,
    dataDir: join(root, 'data'),
    socketDir: root,
    port: await freePort(),
    runAs,
    durable: options.durable ?? false,
  };
  try {
    const pwfile = join(root, 'pw');
    writeFileSync(pwfile, 'unused\n', { mode: 0o600 });
    if (runAs) execFileSync('chown', [runAs, pwfile]);
    run(info, 'initdb', [
      '-D',
      info.dataDir,
      '-U',
      'postgres',
      '--auth-local=trust',
      '--auth-host=scram-sha-256',
      '--pwfile',
      pwfile,
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    rmSync(pwfile);
    startServer(info);
    psql(info, `CREATE ROLE ${TCP_USER} LOGIN CREATEDB PASSWORD '${TCP_PASSWORD}'`);
  } catch (error) {
    // Nothing half-made is left behind: a started server is stopped, the directory removed.
    stopCluster(info);
    throw error;
  }
  return info;
}

/** pg_ctl start with the test settings (also after stopServer). */
export function startServer(info: ClusterInfo): void {
  const options = [
    `-c listen_addresses=127.0.0.1`,
    `-c port=${info.port}`,
    `-c unix_socket_directories=${info.socketDir}`,
    // Throwaway data on a shared machine: what is tested is the service's ordering (250 after COMMIT),
    // not the disk's; a kill -9 or restart here is of the service or a clean database shutdown. The
    // bench keeps both on, so a COMMIT costs what it costs on a real server.
    ...(info.durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
    '-c max_connections=300',
  ].join(' ');
  run(info, 'pg_ctl', [
    '-D',
    info.dataDir,
    '-l',
    join(info.root, 'server.log'),
    '-o',
    options,
    '-w',
    '-t',
    '60',
    'start',
  ]);
}

/** pg_ctl stop (fast: open transactions are rolled back, connections cut). */
export function stopServer(info: ClusterInfo): void {
  run(info, 'pg_ctl', ['-D', info.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
}

/**
 * pg_ctl restart -m fast, without blocking this process (the test's own SMTP clients keep going while the
 * database is away): open transactions are rolled back and connections cut, then it starts again with
 * the same settings. Resolves once it accepts connections.
 */
export function restartServer(info: ClusterInfo): Promise<void> {
  const args = ['-D', info.dataDir, '-m', 'fast', '-w', '-t', '60', 'restart'];
  const command = join(info.bin, 'pg_ctl');
  const [file, argv] = info.runAs ? ['runuser', ['-u', info.runAs, '--', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    // pg_ctl's server keeps the pipes open: its output goes to the cluster's log file instead.
    execFile(file, [...argv.slice(0, -1), '-l', join(info.root, 'server.log'), 'restart'], (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

/** Stops the server (if running) and removes the cluster's directory. */
export function stopCluster(info: ClusterInfo): void {
  try {
    stopServer(info);
  } catch {
    // Already stopped.
  }
  rmSync(info.root, { recursive: true, force: true });
}

/** Runs SQL as the superuser over the socket (psql from the same bin dir). */
export function psql(info: ClusterInfo, sql: string, database = 'postgres'): string {
  return run(info, 'psql', [
    '-X',
    '-q',
    '-A',
    '-t',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    info.socketDir,
    '-p',
    String(info.port),
    '-U',
    'postgres',
    '-d',
    database,
    '-c',
    sql,
  ]);
}

/**
 * A backup of `database` as an operator takes one (pg_dump, custom format) into the cluster's directory;
 * returns the file. restoreDatabase puts it back.
 */
export function dumpDatabase(info: ClusterInfo, database: string): string {
  const file = join(info.root, `${database}-${Date.now()}.dump`);
  run(info, 'pg_dump', ['-h', info.socketDir, '-p', String(info.port), '-U', 'postgres', '-Fc', '-f', file, database]);
  return file;
}

/** Restores a dump of dumpDatabase into `database`, made anew (whatever it held since is gone). */
export function restoreDatabase(info: ClusterInfo, database: string, file: string): void {
  psql(info, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  psql(info, `CREATE DATABASE ${database} OWNER ${TCP_USER}`);
  run(info, 'pg_restore', [
    '-h',
    info.socketDir,
    '-p',
    String(info.port),
    '-U',
    'postgres',
    '-d',
    database,
    '--exit-on-error',
    file,
  ]);
}

/** The URL of `database` over the socket as TCP_USER (no password: the socket trusts the OS user). */
export function socketUrl(info: ClusterInfo, database: string): string {
  return `postgres://${TCP_USER}@localhost:${info.port}/${database}?host=${encodeURIComponent(info.socketDir)}`;
}

/** The URL of `database` over loopback TCP as TCP_USER, without the password (give it by PGPASSWORD). */
export function tcpUrl(info: ClusterInfo, database: string): string {
  return `postgres://${TCP_USER}@127.0.0.1:${info.port}/${database}`;
}

let databases = 0;

/** A new, empty database (owned by TCP_USER, so both URLs reach it); returns its name. */
export function createDatabase(info: ClusterInfo, prefix = 'test'): string {
  const name = `${prefix}_${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`;
  psql(info, `CREATE DATABASE ${name} OWNER ${TCP_USER}`);
  return name;
}

/** Drops a database, cutting whatever is still connected to it. */
export function dropDatabase(info: ClusterInfo, name: string): void {
  psql(info, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
