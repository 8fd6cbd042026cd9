/**
 * The operations on one token's inbox: its listing (and the version a cached answer is keyed by), a
 * message, its source and attachments, and deleting one. Each finds the token's live session first
 * (a token is looked up by its hash alone, token-hash.ts); an unknown or expired one answers the error
 * the front ends give. A message stored without its MIME parse (StoredMessageBody.parseOnRead) is
 * parsed from its raw bytes when it is read, exactly as a delivery parses the others.
 */
import { formatWireTime } from '../../platform/time';
import { parseMessage, type ParsedFields } from '../mail/mime';
import type { Clock } from '../config/server-config';
import {
  ServiceError,
  type AttachmentMeta,
  type InboxView,
  type MailService,
  type MessageFull,
  type MessageMeta,
} from './service-types';
import type { Store, StoredAttachmentMeta, StoredMessage, StoredMessageMeta, StoredSession } from '../store/store';
import { hashToken } from './token-hash';

export interface InboxReadsDeps {
  store: Store;
  clock: Clock;
  /** The service's wrapper of a store call (a failure becomes storage_unavailable). */
  guarded<T>(work: () => Promise<T>, isWrite?: boolean): Promise<T>;
  /** Mail was deleted: the storage cap measures again before it next refuses (room is seen at once). */
  onFreed?: () => void;
}

type InboxReads = Pick<
  MailService,
  'checkMail' | 'describeSession' | 'inbox' | 'readMail' | 'deleteMail' | 'rawMessage' | 'attachment'
>;

function requiredToken(token: string): string {
  if (typeof token !== 'string' || token === '') throw new ServiceError('invalid_token', 'A session token is required');
  return token;
}

/** `session` when it is there and live at `clock()`, or the error the caller must answer with. */
export function liveSession(clock: Clock, session: StoredSession | undefined): StoredSession {
  if (!session) throw new ServiceError('invalid_token', 'Unknown session token; create a new address');
  if (session.expiresAt <= clock()) {
    throw new ServiceError(
      'session_expired',
      `This address expired at ${formatWireTime(new Date(session.expiresAt))} UTC; create a new one`,
    );
  }
  return session;
}

/** The live session of a token, or the error the caller must answer with. */
async function sessionOf(deps: InboxReadsDeps, token: string): Promise<StoredSession> {
  return liveSession(
    deps.clock,
    await deps.guarded(() => deps.store.getSessionByTokenHash(hashToken(requiredToken(token)))),
  );
}

function notFound(id: number): ServiceError {
  return new ServiceError('not_found', `No message with id ${Number.isFinite(id) ? id : '?'} in this inbox`);
}

function toMeta(m: StoredMessageMeta): MessageMeta {
  return {
    id: m.id,
    senderName: m.senderName,
    senderEmail: m.senderEmail,
    subject: m.subject,
    receivedAt: new Date(m.receivedAt),
    hasAttachments: m.attachments.length > 0,
  };
}

/** The body and attachments of a stored message: as stored, or parsed now from its raw bytes. */
export async function bodyOf(
  deps: InboxReadsDeps,
  session: StoredSession,
  m: StoredMessage,
): Promise<Pick<StoredMessage, 'to' | 'cc' | 'text' | 'html' | 'headers' | 'attachments'> & { parsed?: ParsedFields }> {
  if (!m.parseOnRead) return m;
  const raw = await deps.guarded(() => deps.store.rawMessage(session.id, m.id));
  if (!raw) throw notFound(m.id);
  const parsed = await parseMessage(raw, m.envelopeFrom ?? '');
  const attachments = parsed.attachments.map(
    (a, i): StoredAttachmentMeta => ({
      id: i + 1,
      filename: a.filename,
      contentType: a.contentType,
      size: a.bytes.length,
    }),
  );
  return {
    to: parsed.to,
    cc: parsed.cc,
    text: parsed.text,
    html: parsed.html,
    headers: parsed.headers,
    attachments,
    parsed,
  };
}

/** The inbox operations of one mail service. */
export function inboxReads(deps: InboxReadsDeps): InboxReads {
  const { store, clock, guarded } = deps;

  return {
    async checkMail(token) {
      const session = await sessionOf(deps, token);
      const list = await guarded(() => store.listMessages(session.id));
      return list.reverse().map(toMeta);
    },

    async describeSession(token) {
      const session = await sessionOf(deps, token);
      return { id: session.id, email: session.email, expiresAt: new Date(session.expiresAt) };
    },

    async inbox(token) {
      // The session and its version in one read, then (only when the caller needs it) the listing: a
      // listing read later is never older than its version, so a cache keyed by version never serves a
      // stale one.
      const found = await guarded(() => store.inboxByTokenHash(hashToken(requiredToken(token))));
      const session = liveSession(clock, found?.session);
      const version = found!.version;
      return {
        key: session.id,
        version,
        list: async () => (await guarded(() => store.listMessages(session.id))).reverse().map(toMeta),
      } satisfies InboxView;
    },

    async readMail(token, id) {
      const session = await sessionOf(deps, token);
      const m = await guarded(() => store.getMessage(session.id, id));
      if (!m) throw notFound(id);
      const body = await bodyOf(deps, session, m);
      return {
        ...toMeta(m),
        hasAttachments: body.attachments.length > 0,
        to: body.to,
        cc: body.cc,
        text: body.text,
        html: body.html,
        headers: body.headers,
        attachments: body.attachments.map((a): AttachmentMeta => ({ ...a })),
      } satisfies MessageFull;
    },

    async deleteMail(token, id) {
      const session = await sessionOf(deps, token);
      const removed = await guarded(() => store.deleteMessage(session.id, id), true);
      if (!removed) throw notFound(id);
      deps.onFreed?.();
    },

    async rawMessage(token, id) {
      const session = await sessionOf(deps, token);
      const raw = await guarded(() => store.rawMessage(session.id, id));
      if (!raw) throw notFound(id);
      return raw;
    },

    async attachment(token, id, attachmentId) {
      const session = await sessionOf(deps, token);
      const m = await guarded(() => store.getMessage(session.id, id));
      if (!m) throw notFound(id);
      const body = await bodyOf(deps, session, m);
      const meta = body.attachments.find((a) => a.id === attachmentId);
      const bytes =
        meta &&
        (body.parsed
          ? body.parsed.attachments[attachmentId - 1]?.bytes
          : await guarded(() => store.attachmentBytes(session.id, id, attachmentId)));
      if (!meta || !bytes) {
        throw new ServiceError(
          'not_found',
          `Message ${id} has no attachment ${Number.isFinite(attachmentId) ? attachmentId : '?'}`,
        );
      }
      return { meta: { ...meta }, bytes };
    },
  };
}
