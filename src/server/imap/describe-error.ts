/**
 * Why an IMAP connection failed, in a few words for the log and for the account's inactive reason. The
 * text is built from the error's code and the server's answer, never from what was sent: imapflow masks
 * the password in the commands it records, and this masks it again wherever it might appear (as given,
 * or base64-encoded as SASL PLAIN and LOGIN send it), so no secret reaches a log line.
 */
import { PasswordUnavailableError } from './password';

interface ImapErrorLike {
  message?: unknown;
  code?: unknown;
  authenticationFailed?: unknown;
  responseText?: unknown;
  serverResponseCode?: unknown;
  tlsFailed?: unknown;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_)/;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `text` with every form of `secret` that could appear in it replaced by ***. */
export function maskSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  let out = text;
  const forms = [
    secret,
    Buffer.from(secret).toString('base64'),
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
  ];
  for (const form of forms) if (form.length >= 3) out = out.split(form).join('***');
  return out;
}

/** One line saying why the connection to `where` (host:port) failed; `secret` is masked from it. */
export function describeImapError(error: unknown, where: string, secret?: string): string {
  if (error instanceof PasswordUnavailableError) return error.message;
  const e = (error ?? {}) as ImapErrorLike;
  const code = str(e.code);
  const message = str(e.message) || String(error);
  const answer = str(e.responseText).slice(0, 200);
  let text: string;
  if (e.authenticationFailed === true) {
    text = `login refused by ${where}${answer ? `: ${answer}` : str(e.serverResponseCode) ? ` (${str(e.serverResponseCode)})` : ''}; check the user and the password`;
  } else if (code === 'ECONNREFUSED') {
    text = `connection refused by ${where}`;
  } else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    text = `cannot resolve the host of ${where} (${code})`;
  } else if (
    code === 'CONNECT_TIMEOUT' ||
    code === 'GREETING_TIMEOUT' ||
    code === 'UPGRADE_TIMEOUT' ||
    code === 'ETIMEDOUT' ||
    code === 'ETIMEOUT'
  ) {
    text = `${where} did not answer in time (${code})`;
  } else if (TLS_CODE.test(code) || e.tlsFailed === true) {
    text = `TLS with ${where} failed: ${message}${code ? ` (${code})` : ''}`;
  } else if (code === 'NoConnection' || code === 'EConnectionClosed' || code === 'ECONNRESET' || code === 'EPIPE') {
    text = `the connection to ${where} was closed${answer ? `: ${answer}` : ''}`;
  } else {
    text = `${message}${code && !message.includes(code) ? ` (${code})` : ''}${answer && !message.includes(answer) ? `: ${answer}` : ''} (${where})`;
  }
  return maskSecret(text, secret).replace(/\s+/g, ' ').slice(0, 400);
}
