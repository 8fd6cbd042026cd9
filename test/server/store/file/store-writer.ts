/**
 * Child process for the store's crash test: opens a FileStore, creates one session, then adds messages
 * in a loop (several in flight) and prints "ack <id> <marker>" after each add resolves, until killed.
 * Usage: node --import tsx store-writer.ts DATA_DIR SESSION_ID
 */
import { FileStore } from '../../../../src/server/store/file/file-store';

const [dataDir, sessionId] = process.argv.slice(2);
if (!dataDir || !sessionId) process.exit(2);

const store = new FileStore(dataDir);
await store.open();
if (!(await store.getSession(sessionId))) {
  await store.putSession({
    id: sessionId,
    tokenHash: `hash-${sessionId}`,
    email: `${sessionId}@tempmail.test`,
    addressKey: `${sessionId}@tempmail.test`,
    localPart: sessionId,
    domain: 'tempmail.test',
    kind: 'domain',
    extmailAccountId: null,
    createdAt: Date.now(),
    expiresAt: Date.now() + 3_600_000,
  });
}
process.stdout.write('ready\n');

let n = 0;
async function writer(): Promise<void> {
  for (;;) {
    const marker = `${process.pid}-${n++}`;
    const raw = Buffer.from(`Subject: ${marker}\r\n\r\n${'x'.repeat(Math.floor(Math.random() * 20_000))}\r\n`);
    const meta = await store.addMessage(sessionId!, {
      senderName: 'w',
      senderEmail: 'w@example.test',
      subject: marker,
      receivedAt: Date.now(),
      to: [],
      cc: [],
      text: raw.toString(),
      html: null,
      headers: {},
      raw,
      attachments: [{ filename: 'a', contentType: 'text/plain', bytes: raw }],
    });
    process.stdout.write(`ack ${meta.id} ${marker}\n`);
  }
}
await Promise.all([writer(), writer(), writer(), writer()]);
