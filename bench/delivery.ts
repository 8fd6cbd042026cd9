/**
 * What acknowledged-means-kept costs: messages delivered over real SMTP to the reference service (parse,
 * durable store, 250) against writing the same bytes durably by hand (temp file, fsync, rename, dir fsync)
 * in the same run.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import type { TestService } from '../test/harness/service';

export interface DeliveryResult {
  messages: number;
  baselineMs: number;
  smtpMs: number;
}

function durableWrites(n: number, bytes: Buffer): number {
  const dir = mkdtempSync(join(tmpdir(), 'tempmail-bench-fs-'));
  try {
    const start = performance.now();
    for (let i = 0; i < n; i++) {
      const tmp = join(dir, `.${i}.tmp`);
      const fd = openSync(tmp, 'w', 0o600);
      writeSync(fd, bytes);
      fsyncSync(fd);
      closeSync(fd);
      renameSync(tmp, join(dir, `${i}.msg`));
      const dfd = openSync(dir, 'r');
      fsyncSync(dfd);
      closeSync(dfd);
    }
    return performance.now() - start;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sends `n` messages one after another over one SMTP connection (each waits for its 250). */
export async function benchDelivery(svc: TestService, to: string, n = 200): Promise<DeliveryResult> {
  const text = 'Your verification code is 482913.\n'.repeat(60);
  const transport = nodemailer.createTransport({ host: svc.smtpHost, port: svc.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
  try {
    await transport.sendMail({ from: 'warm@bench.test', to, subject: 'warm-up', text });
    const start = performance.now();
    for (let i = 0; i < n; i++) await transport.sendMail({ from: 'bench@bench.test', to, subject: `m${i}`, text });
    const smtpMs = performance.now() - start;
    const baselineMs = durableWrites(n, Buffer.from(text.repeat(2)));
    return { messages: n, baselineMs, smtpMs };
  } finally {
    transport.close();
  }
}

export function formatDelivery(r: DeliveryResult): string {
  const per = (ms: number) => (ms / r.messages).toFixed(2);
  return (
    `delivery: ${r.messages} messages over SMTP ${per(r.smtpMs)}ms each vs durable file write ${per(r.baselineMs)}ms each ` +
    `(${(r.smtpMs / r.baselineMs).toFixed(2)}x)`
  );
}
