/**
 * Starts the real reference service for a test: a temp data dir, loopback, ports 0. Plus senders that
 * speak real SMTP to it through nodemailer. Shared by the server, client and TUI tests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { startServer, type RunningServer, type ServerDeps } from '../../src/server/serve/assemble';
import { defaultServerConfig, type Clock, type ServerConfig } from '../../src/server/config/server-config';
import type { MailService } from '../../src/server/service/service-types';

export interface TestService {
  /** e.g. "http://127.0.0.1:43211/" (trailing slash, ready for got's prefixUrl). */
  baseUrl: string;
  /** The admin API's own listener, with `adminListen` (trailing slash). */
  adminUrl?: string;
  smtpHost: string;
  smtpPort: number;
  dataDir: string;
  service: MailService;
  config: ServerConfig;
  /** Every line the service logged, to assert that no token ever reaches a log. */
  logs: string[];
  /** Limits, health and counters of the running service (stats, limits, updateLimits). */
  ops: RunningServer['ops'];
  /** Stops the service (graceful) and removes the data dir. Safe to call twice. */
  close(): Promise<void>;
}

/** Starts the reference service on 127.0.0.1, ports 0, in a fresh temp data dir. */
export async function startTestService(
  overrides: Partial<ServerConfig> = {},
  deps: { clock?: Clock; onCatchAll?: ServerDeps['onCatchAll'] } = {},
): Promise<TestService> {
  const ownDir = overrides.dataDir === undefined;
  const dataDir = overrides.dataDir ?? (await mkdtemp(join(tmpdir(), 'tempmail-svc-')));
  const config: ServerConfig = {
    ...defaultServerConfig({}),
    host: '127.0.0.1',
    httpPort: 0,
    smtpPort: 0,
    // Short idle timeout so a test that forgets a connection does not hold the close for a minute.
    smtpSocketTimeoutMs: 10_000,
    ...overrides,
    dataDir,
  };
  const logs: string[] = [];
  let running: RunningServer;
  try {
    running = await startServer(config, {
      clock: deps.clock,
      log: (line) => logs.push(line),
      onCatchAll: deps.onCatchAll,
    });
  } catch (error) {
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const server = running;
  let closed: Promise<void> | undefined;
  return {
    baseUrl: server.httpUrl,
    adminUrl: server.adminUrl,
    smtpHost: server.smtpHost,
    smtpPort: server.smtpPort,
    dataDir,
    service: server.service,
    config: server.config,
    logs,
    ops: server.ops,
    close() {
      closed ??= (async () => {
        await server.close();
        if (ownDir) await rm(dataDir, { recursive: true, force: true });
      })();
      return closed;
    },
  };
}

/** Where to send mail: anything with the SMTP host and port (a TestService, or a child `serve`). */
export interface SmtpTarget {
  smtpHost: string;
  smtpPort: number;
}

export interface SendMailInput {
  from?: string;
  to: string | string[];
  cc?: string | string[];
  subject?: string;
  text?: string;
  html?: string;
  headers?: Record<string, string>;
  attachments?: Mail.Attachment[];
  /** A whole RFC 5322 message; with it, only `from`/`to` (the envelope) are used. */
  raw?: string | Buffer;
}

function transport(target: SmtpTarget) {
  return nodemailer.createTransport({
    host: target.smtpHost,
    port: target.smtpPort,
    secure: false,
    // Loopback only: the service offers no STARTTLS and needs no AUTH.
    ignoreTLS: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  } satisfies SMTPTransport.Options);
}

/**
 * Sends one message over real SMTP. Resolves with nodemailer's info (accepted, rejected, response);
 * rejects like nodemailer does (`responseCode` on the error) when the service refuses it.
 */
export async function sendMail(target: SmtpTarget, input: SendMailInput): Promise<SMTPTransport.SentMessageInfo> {
  const t = transport(target);
  try {
    const from = input.from ?? 'Sender <sender@example.org>';
    if (input.raw !== undefined) {
      return await t.sendMail({ envelope: { from, to: input.to }, raw: input.raw });
    }
    return await t.sendMail({
      from,
      to: input.to,
      cc: input.cc,
      subject: input.subject ?? '',
      text: input.text,
      html: input.html,
      headers: input.headers,
      attachments: input.attachments,
    });
  } finally {
    t.close();
  }
}

/** Sends raw bytes (e.g. a .eml fixture) unchanged, with `to` as the envelope recipient(s). */
export function sendRaw(
  target: SmtpTarget,
  to: string | string[],
  raw: string | Buffer,
  from = 'sender@example.org',
): Promise<SMTPTransport.SentMessageInfo> {
  return sendMail(target, { from, to, raw });
}
