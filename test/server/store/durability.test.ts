/**
 * "Acknowledged means kept": the built `serve` in a child process takes a stream of messages over several
 * SMTP connections and is killed with SIGKILL at a random moment; restarted on the same data dir, every
 * message that got a 250 must be there exactly once (in every mailbox it was addressed to). Several rounds.
 * Eight connections, and every third message for two mailboxes: the messages go down in group commits of
 * several files in two directories, so most kills land in the middle of a batch. What a kill cuts short
 * of a batch (a message file not yet whole) is set aside as *.corrupt once the restarted service has
 * read the inbox: never served, and never a message that was acknowledged.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { call } from '../../harness/http';
import { startServeProcess, stopServe, type ServeReady } from '../../harness/serve-process';
import { openSmtp, type SmtpDialog } from '../../harness/smtp-dialog';
import { waitFor } from '../../harness/wait';

const ROUNDS = 5;
const CONNECTIONS = 8;
/** Keep going until at least this many messages were acknowledged over all rounds. */
const MIN_ACKED = 1000;

interface Box {
  email: string;
  token: string;
}

const dirs: string[] = [];
let current: ServeReady | undefined;
afterAll(async () => {
  if (current) await stopServe(current, 'SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** One connection sending messages back to back until the server goes away. Records 250s. */
async function sendStream(
  proc: ServeReady,
  boxes: Box[],
  tag: string,
  sent: Set<string>,
  acked: Map<string, string[]>,
): Promise<void> {
  let c: SmtpDialog | undefined;
  try {
    c = await openSmtp(proc);
    await c.command('EHLO durability.test');
    for (let n = 0; ; n++) {
      const id = `${tag}-${n}`;
      // Every third message goes to two mailboxes: both must hold it once acknowledged.
      const to = n % 3 === 0 ? boxes : [boxes[n % boxes.length]!];
      // Now and then a larger message, so a kill also lands in the middle of a bigger write.
      const filler = n % 10 === 0 ? 'y'.repeat(40_000) : 'x'.repeat(200);
      const raw = `From: Stream <stream@example.org>\r\nTo: ${to.map((b) => b.email).join(', ')}\r\nSubject: ${id}\r\nMessage-ID: <${id}@durability.test>\r\n\r\n${filler}\r\n`;
      if (!(await c.command('MAIL FROM:<stream@example.org>')).startsWith('250')) return;
      for (const box of to) if (!(await c.command(`RCPT TO:<${box.email}>`)).startsWith('250')) return;
      if (!(await c.command('DATA')).startsWith('354')) return;
      sent.add(id);
      c.write(`${raw}.\r\n`);
      const reply = await c.reply();
      if (!reply.startsWith('250')) throw new Error(`unexpected answer to DATA: ${reply}`);
      acked.set(
        id,
        to.map((b) => b.token),
      );
    }
  } catch (error) {
    // The kill cuts the connection: that is the point. Anything else is a failure of the test.
    if (!(error instanceof Error) || !/connection closed|ECONNRESET|EPIPE|ECONNREFUSED/.test(error.message))
      throw error;
  } finally {
    c?.destroy();
  }
}

/** Subjects in one mailbox, with how often each appears. */
async function contents(proc: ServeReady, token: string): Promise<Map<string, number>> {
  const res = await call(proc.baseUrl, '/check-mail', { query: { token } });
  expect(res.status).toBe(200);
  const counts = new Map<string, number>();
  for (const m of res.json!.messages as { subject: string }[]) counts.set(m.subject, (counts.get(m.subject) ?? 0) + 1);
  return counts;
}

it('loses no acknowledged message and duplicates none across kill -9 and restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'tempmail-durable-'));
  dirs.push(dataDir);
  const args = ['--data-dir', dataDir, '--inbox-limit', '1000000', '--lifetime-minutes', '600'];
  current = await startServeProcess(args);
  const boxes: Box[] = [];
  for (const prefix of ['durable-a', 'durable-b']) {
    const res = await call(current.baseUrl, '/create-session', { form: { prefix } });
    expect(res.status).toBe(200);
    boxes.push(res.json as Box);
  }

  const sent = new Set<string>();
  const acked = new Map<string, string[]>();
  /** Message files a kill cut short, set aside by the restarted service (inbox/name). */
  const setAside = new Set<string>();
  const report: string[] = [];
  let round = 0;
  while (round < ROUNDS || (acked.size < MIN_ACKED && round < ROUNDS * 3)) {
    const before = acked.size;
    const proc = current;
    const streams = Array.from({ length: CONNECTIONS }, (_, i) =>
      sendStream(proc, boxes, `r${round}c${i}`, sent, acked),
    );
    // Kill at a random moment, once the stream is well under way.
    const target = before + 100 + Math.floor(Math.random() * 200);
    await waitFor(() => acked.size >= target, {
      timeoutMs: 60_000,
      intervalMs: 5,
      message: `${target} acknowledged messages`,
    });
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50)); // a random offset inside a write, not a sleep-as-wait
    proc.child.kill('SIGKILL');
    expect((await proc.exited).signal).toBe('SIGKILL');
    await Promise.all(streams);

    current = await startServeProcess(args);
    // Every acknowledged message is in every mailbox it was addressed to, exactly once; no duplicates at all.
    const found = new Map<string, Map<string, number>>();
    for (const box of boxes) found.set(box.token, await contents(current, box.token));
    for (const [id, tokens] of acked) {
      for (const token of tokens) expect(found.get(token)!.get(id), `acknowledged ${id} after round ${round}`).toBe(1);
    }
    let stored = 0;
    for (const counts of found.values()) {
      for (const [subject, count] of counts) {
        expect(count, `${subject} duplicated`).toBe(1);
        expect(sent.has(subject), `${subject} was never sent`).toBe(true);
        stored++;
      }
    }
    // The inboxes were read just now: a batch cut by the kill left no temp file behind, and what it cut
    // short is set aside, each the file of a message that was never acknowledged.
    for (const dir of await readdir(join(dataDir, 'messages'))) {
      const names = await readdir(join(dataDir, 'messages', dir));
      expect(
        names.filter((name) => name.startsWith('.tmp-')),
        `after round ${round}`,
      ).toEqual([]);
      for (const name of names.filter((n) => n.endsWith('.corrupt') && !setAside.has(`${dir}/${n}`))) {
        setAside.add(`${dir}/${name}`);
        const subject = /Subject: (\S+)/.exec(await readFile(join(dataDir, 'messages', dir, name), 'latin1'))?.[1];
        if (subject !== undefined)
          expect(acked.has(subject), `${name} (${subject}) was acknowledged, yet cut short`).toBe(false);
      }
    }
    const inFlight = [...sent].filter((id) => !acked.has(id));
    report.push(
      `round ${round}: sent ${sent.size}, acknowledged ${acked.size} (+${acked.size - before}), stored copies ${stored}, ` +
        `unacknowledged in flight ${inFlight.length}, cut short and set aside so far ${setAside.size}`,
    );
    round++;
  }
  const foundTotal = [...acked].reduce((n, [, tokens]) => n + tokens.length, 0);
  report.push(
    `total: ${round} kills, sent ${sent.size}, acknowledged ${acked.size}, acknowledged copies found ${foundTotal}, lost 0, duplicates 0`,
  );
  console.log(`durability\n  ${report.join('\n  ')}`);
  expect(acked.size).toBeGreaterThanOrEqual(MIN_ACKED);
  expect(await stopServe(current)).toEqual({ code: 0, signal: null });
  current = undefined;
}, 300_000);
