/** A MailService on a real store with an injected clock, and real MIME composed by nodemailer. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import { defaultServerConfig, type ServerConfig } from '../../src/server/config/server-config';
import { openFileStore } from '../../src/server/store/file/file-store';
import { createMailService } from '../../src/server/service/mail-service';
import { MemoryStore } from '../../src/server/store/memory-store';
import type { MailService } from '../../src/server/service/service-types';
import type { Store } from '../../src/server/store/store';
import { cleanupAfterEach } from '../harness/cleanup';

/** 2026-11-21 10:00:00 UTC: the tests' "now", moved by hand. */
export const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);

export interface ServiceFixture {
  service: MailService;
  store: Store;
  config: ServerConfig;
  dataDir: string;
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  now(): number;
  logs: string[];
  close(): Promise<void>;
}

/** A service on a FileStore (`file: true`) or a MemoryStore, with test-friendly limits. */
export async function makeService(overrides: Partial<ServerConfig> = {}, file = false): Promise<ServiceFixture> {
  const root = await mkdtemp(join(tmpdir(), 'tempmail-svc-'));
  const config: ServerConfig = {
    ...defaultServerConfig({}),
    dataDir: join(root, 'data'),
    domains: ['tempmail.test', 'inbox.test'],
    extmailAccounts: [
      { email: 'john.doe@gmail.test', dotInsensitive: true },
      { email: 'jane@mail.test', dotInsensitive: false },
    ],
    lifetimeSeconds: 600,
    inboxLimit: 3,
    createPerMinute: 1000,
    ...overrides,
  };
  const store: Store = file ? await openFileStore(config.dataDir) : new MemoryStore();
  if (!file) await store.open();
  let now = T0;
  const logs: string[] = [];
  const service = createMailService({ store, config, clock: () => now, log: (l) => logs.push(l) });
  return {
    service,
    store,
    config,
    dataDir: config.dataDir,
    advance: (ms) => {
      now += ms;
    },
    now: () => now,
    logs,
    async close() {
      await service.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/** A real RFC 5322 message, composed by nodemailer. */
export async function compose(options: Mail.Options): Promise<Buffer> {
  const info = await composer.sendMail({ from: '"Ann Sender" <ann@example.test>', ...options });
  return info.message as Buffer;
}

/** makeService for a test file: every service it makes is closed after its test. Call at the top level. */
export function serviceMaker(): typeof makeService {
  const cleanup = cleanupAfterEach();
  return async (...args) => cleanup.defer(await makeService(...args), (f) => f.close());
}
