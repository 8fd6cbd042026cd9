/**
 * What a refused client reads before it is closed, before any key exchange: the reason as a line (for
 * `nc` and `telnet`), then SSH's version line and a DISCONNECT message in the clear (RFC 4253 allows
 * unencrypted packets before the first key exchange), which OpenSSH prints as
 * "Received disconnect from HOST port N:12: <reason>".
 */
const TOO_MANY_CONNECTIONS = 12;

function sshString(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/** The bytes that refuse a connection with `reason` (one line of plain text). */
export function refusalBytes(reason: string): Buffer {
  const code = Buffer.alloc(4);
  code.writeUInt32BE(TOO_MANY_CONNECTIONS);
  const payload = Buffer.concat([Buffer.from([1]), code, sshString(reason), sshString('')]);
  // Padding: at least 4 bytes, the whole (length field excluded... and included) a multiple of 8.
  let padding = 8 - ((5 + payload.length) % 8);
  if (padding < 4) padding += 8;
  const head = Buffer.alloc(5);
  head.writeUInt32BE(1 + payload.length + padding);
  head[4] = padding;
  return Buffer.concat([
    Buffer.from(`tempmail-tui: ${reason}\r\nSSH-2.0-tempmail-tui\r\n`),
    head,
    payload,
    Buffer.alloc(padding),
  ]);
}
