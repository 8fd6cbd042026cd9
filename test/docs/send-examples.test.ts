/**
 * Every example in the docs that sends mail runs as written (issue 26): each `python3` command of a
 * shell block in README.md and docs/ is run by a real shell against the real service, with only its
 * address, host and port put right (and, for the STARTTLS one of docs/server/deploy.md, a test CA to trust), and the
 * message must arrive. An example that names a tool most machines lack fails the docs test beside this.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi } from '../../src/client/tempmail/tempmail-client';
import { docFiles, repoPath } from '../../scripts/docs-gen/doc-files';
import { startTestService, type TestService } from '../harness/service';
import { makeCa, makeServerCert, type TestCa } from '../harness/tls-certs';
import { waitFor } from '../harness/wait';

interface Example {
  file: string;
  command: string;
}

/** The python3 commands of the shell blocks of `markdown`: one-line `python3 -c` ones and `python3 - <<'EOF'` heredocs. */
function examplesOf(file: string, markdown: string): Example[] {
  const out: Example[] = [];
  for (const block of markdown.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)) {
    const lines = block[2]!.split('\n').map((l) => l.slice(block[1]!.length));
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (/^python3 -c /.test(line)) out.push({ file, command: line });
      else if (/^python3 - <<'EOF'$/.test(line)) {
        const end = lines.indexOf('EOF', i);
        out.push({ file, command: lines.slice(i, end + 1).join('\n') });
        i = end;
      }
    }
  }
  return out;
}

const examples = docFiles().flatMap((file) => examplesOf(repoPath(file), readFileSync(file, 'utf8')));

let svc: TestService;
let tlsSvc: TestService;
let ca: TestCa;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'docs-send-'));
  ca = makeCa(dir);
  const cert = makeServerCert(ca, 'localhost', 'localhost');
  svc = await startTestService();
  tlsSvc = await startTestService({ tlsCertFile: cert.cert, tlsKeyFile: cert.key });
});
afterAll(async () => {
  await svc?.close();
  await tlsSvc?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The example aimed at `target` and `address`: nothing else of it changes. */
function aimed(command: string, target: TestService, address: string): string {
  return command
    .replace(/"127\.0\.0\.1", 2525\)/g, `"127.0.0.1", ${target.smtpPort})`)
    .replace(/"mail\.example\.org", 25\)/g, `"localhost", ${target.smtpPort})`)
    .replaceAll('quiet-otter-4821@tempmail.test', address)
    .replaceAll('<the address it gives you>', address);
}

describe('the examples in the docs that send mail', () => {
  it('are found: README, the app, scripting, SMTP and deploy each have theirs, and every smtplib line is one of them', () => {
    expect(new Set(examples.map((e) => e.file))).toEqual(
      new Set(['README.md', 'docs/app.md', 'docs/scripting.md', 'docs/server/smtp.md', 'docs/server/deploy.md']),
    );
    for (const file of docFiles()) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (/smtplib/.test(line))
          expect(
            examples.some((e) => e.command.includes(line.trim())),
            `${repoPath(file)}: ${line}`,
          ).toBe(true);
      }
    }
  });

  for (const [i, example] of examples.entries()) {
    it(`${example.file} #${i + 1} delivers, as written`, async () => {
      const starttls = /starttls/.test(example.command);
      const target = starttls ? tlsSvc : svc;
      const api = createApi({ baseUrl: target.baseUrl, retries: 0 });
      const box = await api.createSession();
      const command = aimed(example.command, target, box.email);
      // The scripting example reads the address from $address, as its block sets it.
      const env = { ...process.env, address: box.email, ...(starttls ? { SSL_CERT_FILE: ca.cert } : {}) };
      const run = await promisify(execFile)('sh', ['-c', command], { env, encoding: 'utf8', timeout: 30_000 });
      expect(run.stderr).toBe('');
      const listed = await waitFor(async () => {
        const list = await api.checkMail(box.token);
        return list.length > 0 ? list : null;
      });
      expect(listed).toHaveLength(1);
    });
  }
});
