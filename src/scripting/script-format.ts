/**
 * How data leaves the scripting commands: JSON (camelCase, ISO times, never the token unless asked) or
 * plain lines (tab-separated where a script would `cut`). Every string here already passed safeText in
 * the client or renderBody, and tabs were folded by safeLine, so a TSV column can hold no tab.
 */
import { detectCode, detectLink } from '../content/codes';
import { renderBody, type Link } from '../content/html-text';
import type { DomainList, Message, MessageSummary } from '../model/mail-types';
import { displayBaseUrl } from '../state/base-url';
import type { SavedSession } from '../state/saved-sessions';

/** ISO 8601 in UTC without milliseconds, or null. */
export function iso(date: Date | null): string | null {
  return date === null || Number.isNaN(date.getTime()) ? null : `${date.toISOString().slice(0, 19)}Z`;
}

/** "Name <email>", or whichever of the two exists. */
export function senderOf(m: MessageSummary): string {
  if (m.senderName && m.senderEmail) return `${m.senderName} <${m.senderEmail}>`;
  return m.senderName || m.senderEmail || '(unknown sender)';
}

/**
 * An id as JSON: a number where it is one (tempmail and Guerrilla Mail ids, as scripts have always read
 * them), a string otherwise (mail.tm's hex ids).
 */
export function wireId(id: string): number | string {
  return /^\d{1,15}$/.test(id) ? Number(id) : id;
}

/** A saved session as JSON; the token only when `showToken`, the password (mail.tm) never. */
export function sessionJson(s: SavedSession, showToken: boolean): Record<string, unknown> {
  return {
    email: s.email,
    ...(showToken ? { token: s.token } : {}),
    // null: the address does not expire (a mail.tm account, kept until deleted).
    expiresAt: iso(s.expiresAt),
    provider: s.provider,
    // Printed without user:password@; the saved file keeps them to reach the service.
    baseUrl: displayBaseUrl(s.baseUrl),
    createdAt: iso(s.createdAt),
  };
}

/** Domains and external accounts as JSON. */
export function domainsJson(d: DomainList): Record<string, unknown> {
  return { domains: d.domains, extmailAccounts: d.extmailAccounts, ...(d.anyDomain ? { anyDomain: true } : {}) };
}

/** Domains as "id<TAB>domain<TAB>name" and "id<TAB>extmail<TAB>email" lines. */
export function domainsText(d: DomainList): string {
  const lines = [
    ...d.domains.map((x) => `${x.id}\tdomain\t${x.domain}`),
    ...d.extmailAccounts.map((x) => `${x.id}\textmail\t${x.email}`),
  ];
  return lines.map((l) => `${l}\n`).join('');
}

/** A message summary as JSON. */
export function summaryJson(m: MessageSummary): Record<string, unknown> {
  return {
    id: wireId(m.id),
    senderName: m.senderName,
    senderEmail: m.senderEmail,
    subject: m.subject,
    receivedAt: iso(m.receivedAt),
  };
}

/** A summary as "id<TAB>time<TAB>sender<TAB>subject". */
export function summaryLine(m: MessageSummary): string {
  return `${m.id}\t${iso(m.receivedAt) ?? '-'}\t${senderOf(m)}\t${m.subject}\n`;
}

/** A message with its rendered text, links, and detected code and link. */
export interface ReadResult {
  message: Message;
  text: string;
  links: Link[];
  code: string | null;
  link: string | null;
}

/** Renders the whole message at `width` and runs the code and link detectors on the text. */
export function analyse(message: Message, width: number): ReadResult {
  // No render cap: it keeps a viewer's keyboard responsive, and a script has no keyboard but wants it all.
  const body = renderBody({ bodyHtml: message.bodyHtml, bodyText: message.bodyText }, width, { maxBytes: Infinity });
  const found = detectCode({ subject: message.subject, text: body.text });
  const link = detectLink({ subject: message.subject, text: body.text, links: body.links });
  return { message, text: body.text, links: body.links, code: found?.code ?? null, link: link?.url ?? null };
}

/** The full message as JSON, with text, links, code and link. */
export function messageJson(r: ReadResult): Record<string, unknown> {
  const m = r.message;
  return {
    ...summaryJson(m),
    to: m.to,
    cc: m.cc,
    code: r.code,
    link: r.link,
    attachments: m.attachments.map((a) => ({ ...a, id: wireId(a.id) })),
    text: r.text,
    links: r.links,
    bodyText: m.bodyText,
    bodyHtml: m.bodyHtml,
  };
}

/** The message as a reader sees it: headers, detected code and link, then the body. */
export function messageText(r: ReadResult): string {
  const m = r.message;
  const head = [
    `From: ${senderOf(m)}`,
    ...(m.to.length ? [`To: ${m.to.join(', ')}`] : []),
    ...(m.cc.length ? [`Cc: ${m.cc.join(', ')}`] : []),
    `Subject: ${m.subject}`,
    `Date: ${iso(m.receivedAt) ?? '-'}`,
    ...m.attachments.map((a) => `Attachment: ${a.filename} (${a.contentType}, ${formatSize(a.size)})`),
    ...(r.code ? [`Code: ${r.code}`] : []),
    ...(r.link ? [`Link: ${r.link}`] : []),
  ];
  const body = r.text.endsWith('\n') ? r.text : `${r.text}\n`;
  return `${head.join('\n')}\n\n${body}`;
}

/** "512 B", "1.5 KB", "2.0 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One JSON document per output, newline-terminated (jq-friendly). */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
