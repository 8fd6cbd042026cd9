/**
 * Seeded data dirs, cached under bench/.cache/datasets/<name>-<hash>/ (data/ plus manifest.json with the
 * sessions' addresses and tokens). The hash covers the dataset's shape and every source that decides
 * what the store writes (src/server/store, src/server/mail, the mail service, mailparser's version, the
 * seeding code), so a change to the store format seeds afresh, and an unchanged one costs nothing on
 * the next run.
 * `serve` runs on the cached dir in place: the figures that use a dataset only read mail from it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDataDir, type InboxSpec, type SeededInbox } from './seed-store';

export interface DatasetSpec {
  name: string;
  inboxes: InboxSpec[];
  /**
   * Session lifetime. Inboxes the app shows live 23 h: under a day, so the app draws its ticking
   * countdown as for any address (it shows no countdown past a day); the others live 300 days.
   */
  lifetimeHours: number;
}

export interface Dataset {
  dataDir: string;
  inboxes: Record<string, SeededInbox>;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'bench', '.cache', 'datasets');
const FORMAT_SOURCES = [
  'src/server/store',
  'src/server/mail',
  'src/server/service',
  'bench/seed',
  'bench/html-fixture.ts',
  // The MIME parser decides the stored fields as much as our code does.
  'node_modules/mailparser/package.json',
];

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

function cacheKey(spec: DatasetSpec): string {
  const hash = createHash('sha256');
  hash.update(String(spec.lifetimeHours));
  hash.update(JSON.stringify(spec.inboxes.map((i) => [i.name, i.batches.map((b) => [b.count, b.message.toString()])])));
  for (const file of FORMAT_SOURCES.flatMap((s) => filesUnder(join(ROOT, s)))) {
    hash.update(relative(ROOT, file));
    hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 12);
}

/** Usable for a whole run: every session has 2 h left at least. */
function fresh(manifest: Record<string, SeededInbox>): boolean {
  return Object.values(manifest).every((i) => Date.parse(i.expiresAt) > Date.now() + 2 * 3600 * 1000);
}

/** The seeded data dir of `spec`, from the cache or seeded now. */
export async function dataset(spec: DatasetSpec, progress: (line: string) => void): Promise<Dataset> {
  const dir = join(CACHE, `${spec.name}-${cacheKey(spec)}`);
  const manifestFile = join(dir, 'manifest.json');
  if (existsSync(manifestFile)) {
    const inboxes = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<string, SeededInbox>;
    if (fresh(inboxes)) return { dataDir: join(dir, 'data'), inboxes };
  }
  // Older seeds of this dataset are of a format (or shape) nobody measures any more.
  mkdirSync(CACHE, { recursive: true });
  for (const name of readdirSync(CACHE)) {
    if (name.startsWith(`${spec.name}-`)) rmSync(join(CACHE, name), { recursive: true, force: true });
  }
  const count = spec.inboxes.reduce((n, i) => n + i.batches.reduce((m, b) => m + b.count, 0), 0);
  progress(
    `seeding ${spec.name}: ${count} messages in ${spec.inboxes.length} inbox(es), through the store (cached for later runs)`,
  );
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true, mode: 0o700 });
  const started = performance.now();
  const inboxes = await seedDataDir(join(partial, 'data'), spec.inboxes, spec.lifetimeHours * 3600, progress);
  writeFileSync(join(partial, 'manifest.json'), JSON.stringify(inboxes, null, 2), { mode: 0o600 });
  renameSync(partial, dir);
  progress(`seeded ${spec.name} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { dataDir: join(dir, 'data'), inboxes };
}
