/**
 * The routes of the HTTP front end: the interface's five operations in our wire shapes, plus the
 * extras (raw message, attachment bytes, health). Each handler turns parameters into one MailService
 * call and the result into a wire answer; it depends on nothing but the service contract. The shapes
 * and errors are docs/server/http-api.md's; docs/server/openapi.yaml describes them route by route, and
 * its tests fail when a route here (or in ADMIN_ROUTES) is missing there, or an answer differs.
 */
import { formatWireTime } from '../../platform/time';
import { matchesEtag, summaryRow } from './check-mail-cache';
import { ADMIN_ROUTES } from '../admin/admin-routes';
import { eventsRoute } from './events-route';
import { optionalFlag, optionalInt, optionalString, requiredInt, requireToken } from './params';
import type { Route, RouteResult } from './route-types';

export type { Route, RouteContext, RouteExtras, RouteResult } from './route-types';

const ok = (body: Record<string, unknown>): RouteResult => ({ kind: 'json', body: { status: 'success', ...body } });

/** A MIME type we are willing to put in a Content-Type header; anything else is served as octet-stream. */
function safeContentType(type: string): string {
  const t = type.trim().toLowerCase();
  return /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/.test(t) ? t : 'application/octet-stream';
}

/**
 * `attachment; filename="ascii"; filename*=UTF-8''utf8`: the name comes from a stranger's mail, so no
 * quote, backslash, control, path separator or bidi control may survive into the header.
 */
export function contentDisposition(name: string, fallback: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
    .replace(/[\\/]/g, '_')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  const base = cleaned === '' ? fallback : cleaned;
  const ascii = base.replace(/[^A-Za-z0-9._ ()+-]/g, '_');
  const encoded = encodeURIComponent(base).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Served bytes are downloads, never pages: no sniffing, no scripts, no framing. */
const DOWNLOAD_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; sandbox",
  'cache-control': 'no-store',
};

/** The route table, by path. */
export const ROUTES: Record<string, Route> = {
  '/domains': {
    method: 'GET',
    async handle(service) {
      const { domains, extmailAccounts } = service.listDomains();
      return ok({
        domains: domains.map((d) => ({ id: d.id, domain: d.domain })),
        extmail_accounts: extmailAccounts.map((a) => ({ id: a.id, email: a.email })),
      });
    },
  },

  '/create-session': {
    method: 'POST',
    async handle(service, { params, clientAddress }) {
      const created = await service.createSession({
        prefix: optionalString(params, 'prefix', 256),
        domainId: optionalInt(params, 'domain_id'),
        useExtmail: optionalFlag(params, 'use_extmail'),
        extmailAuto: optionalFlag(params, 'extmail_auto'),
        extmailId: optionalInt(params, 'extmail_id'),
        clientAddress,
      });
      return ok({ email: created.email, token: created.token, expires_at: formatWireTime(created.expiresAt) });
    },
  },

  '/check-mail': {
    method: 'GET',
    async handle(service, { params, ifNoneMatch, checkMail }) {
      // Built once per version of the listing; a client that sent the answer's ETag hears 304.
      const { body, etag } = await checkMail.answer(await service.inbox(requireToken(params)));
      return matchesEtag(ifNoneMatch, etag) ? { kind: 'not-modified', etag } : { kind: 'serialized', body, etag };
    },
  },

  '/read-mail': {
    method: 'GET',
    async handle(service, { params }) {
      const token = requireToken(params);
      const m = await service.readMail(token, requiredInt(params, 'id'));
      return ok({
        message: {
          ...summaryRow(m),
          to: m.to,
          cc: m.cc,
          body_text: m.text,
          body_html: m.html,
          headers: m.headers,
          attachments: m.attachments.map((a) => ({
            id: a.id,
            filename: a.filename,
            content_type: a.contentType,
            size: a.size,
          })),
        },
      });
    },
  },

  '/delete-mail': {
    method: 'POST',
    async handle(service, { params }) {
      const token = requireToken(params);
      await service.deleteMail(token, requiredInt(params, 'id'));
      return ok({ message: 'Message deleted' });
    },
  },

  '/raw-mail': {
    method: 'GET',
    async handle(service, { params }) {
      const token = requireToken(params);
      const id = requiredInt(params, 'id');
      const body = await service.rawMessage(token, id);
      return {
        kind: 'bytes',
        body,
        headers: {
          ...DOWNLOAD_HEADERS,
          'content-type': 'message/rfc822',
          'content-disposition': contentDisposition(`message-${id}.eml`, 'message.eml'),
        },
      };
    },
  },

  '/attachment': {
    method: 'GET',
    async handle(service, { params }) {
      const token = requireToken(params);
      const { meta, bytes } = await service.attachment(
        token,
        requiredInt(params, 'id'),
        requiredInt(params, 'attachment_id'),
      );
      return {
        kind: 'bytes',
        body: bytes,
        headers: {
          ...DOWNLOAD_HEADERS,
          'content-type': safeContentType(meta.contentType),
          'content-disposition': contentDisposition(meta.filename, `attachment-${meta.id}`),
        },
      };
    },
  },

  '/events': eventsRoute,

  ...ADMIN_ROUTES,

  // For people and monitors: does the service work? Only a word, whoever asks: the reason of a failure
  // (a database's address, an errno) and any count are the log's and the metrics', not an answer's.
  '/health': {
    method: 'GET',
    async handle(service) {
      return (await service.storageServes()) ? plainStatus(200, 'ok') : plainStatus(503, 'unavailable');
    },
  },

  // For load balancers: send traffic here? Not while the storage fails, nor once the service is closing.
  // An IMAP account that cannot be fetched does not count: every other address still works here, and the
  // account is already left out of GET /domains (docs/server/operations.md).
  '/ready': {
    method: 'GET',
    async handle(service, { draining }) {
      if (draining()) return plainStatus(503, 'unavailable');
      return (await service.storageServes()) ? plainStatus(200, 'ready') : plainStatus(503, 'unavailable');
    },
  },
};

/** `{status}` alone; a 503 says when to ask again. */
function plainStatus(status: 200 | 503, word: string): RouteResult {
  return { kind: 'json', status, body: { status: word }, headers: status === 503 ? { 'retry-after': '5' } : {} };
}
