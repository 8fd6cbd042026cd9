/**
 * The admin API's routes, under /admin/ on the same port as the rest (admin-api.ts says who may call
 * them; without --admin-token-file they answer 404 like any path that is no route). Parameters come as
 * on every route (query, form or JSON); answers are JSON in the service's shapes, times as on the wire.
 */
import { formatWireTime } from '../../platform/time';
import type { FoundMessage } from '../store/store';
import { HttpError, optionalInt, optionalString, requiredInt, type Params } from '../http/params';
import type { Route, RouteContext, RouteResult } from '../http/route-types';
import type { AdminApi } from './admin-api';
import { filterTarget } from './admin-audit';
import { parseBlock } from './blocks';
import type { AdminFilter, AdminSession } from './admin-service';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const ok = (body: Record<string, unknown>): RouteResult => ({ kind: 'json', body: { status: 'success', ...body } });

/** The admin API of a request that showed an admin token, and that token's name (the actor); 404 when the API is off. */
function admitted({ extras, bearer }: RouteContext): AdminApi & { actor: string } {
  if (!extras.admin) throw new HttpError(404, 'not_found', 'No such route');
  const actor = extras.admin.authorize(bearer);
  return { ...extras.admin, actor };
}

function filterOf(params: Params): { filter: AdminFilter; limit: number } {
  const limit = optionalInt(params, 'limit') ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT)
    throw new HttpError(400, 'bad_request', `Parameter "limit" must be 1 to ${MAX_LIMIT}`);
  return {
    filter: {
      recipient: optionalString(params, 'recipient', 512),
      sender: optionalString(params, 'sender', 512),
      clientIp: optionalString(params, 'client_ip', 64),
    },
    limit,
  };
}

function requiredString(params: Params, key: string, max = 128): string {
  const value = optionalString(params, key, max);
  if (value === undefined || value === '') throw new HttpError(400, 'bad_request', `Parameter "${key}" is required`);
  return value;
}

const sessionRow = ({ session, messages }: AdminSession) => ({
  id: session.id,
  email: session.email,
  created_at: formatWireTime(new Date(session.createdAt)),
  expires_at: formatWireTime(new Date(session.expiresAt)),
  messages,
});

const messageRow = ({ session, message: m }: FoundMessage) => ({
  session_id: session.id,
  recipient: session.email,
  id: m.id,
  sender_name: m.senderName,
  sender_email: m.senderEmail,
  envelope_from: m.envelopeFrom ?? null,
  client_ip: m.clientIp ?? null,
  subject: m.subject,
  received_at: formatWireTime(new Date(m.receivedAt)),
  size: m.size,
});

export const ADMIN_ROUTES: Record<string, Route> = {
  '/admin/stats': {
    method: 'GET',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const stats = await admin.service.stats();
      admin.audit(admin.actor, 'stats', '');
      return ok({ ...stats, event_streams: admin.events?.size ?? 0 });
    },
  },

  '/admin/sessions': {
    method: 'GET',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const { filter, limit } = filterOf(ctx.params);
      const sessions = await admin.service.sessions(filter, limit);
      admin.audit(admin.actor, 'sessions', filterTarget(filter));
      return ok({ sessions: sessions.map(sessionRow) });
    },
  },

  '/admin/messages': {
    method: 'GET',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const { filter, limit } = filterOf(ctx.params);
      const messages = await admin.service.messages(filter, limit);
      admin.audit(admin.actor, 'messages', filterTarget(filter));
      return ok({ messages: messages.map(messageRow) });
    },
  },

  '/admin/delete-session': {
    method: 'POST',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const id = requiredString(ctx.params, 'session_id');
      const removed = await admin.service.deleteSession(id);
      admin.audit(admin.actor, 'delete-session', `session ${id}`, removed ? 'done' : 'not_found');
      if (!removed) throw new HttpError(404, 'not_found', 'No session with that id');
      // Its event streams end here; on other instances on the same database, when they hear of it
      // (the deletion's notice, postgres/sessions.ts).
      admin.events?.closeSession(id);
      return ok({ message: 'Session deleted' });
    },
  },

  '/admin/delete-message': {
    method: 'POST',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const sessionId = requiredString(ctx.params, 'session_id');
      const id = requiredInt(ctx.params, 'id');
      const removed = await admin.service.deleteMessage(sessionId, id);
      admin.audit(
        admin.actor,
        'delete-message',
        `message ${id} of session ${sessionId}`,
        removed ? 'done' : 'not_found',
      );
      if (!removed) throw new HttpError(404, 'not_found', 'No such message in that session');
      return ok({ message: 'Message deleted' });
    },
  },

  '/admin/blocks': {
    method: 'GET',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const blocks = await admin.service.blocks();
      admin.audit(admin.actor, 'blocks', '');
      return ok({
        blocks: blocks.map((b) => ({
          kind: b.kind,
          value: b.value,
          created_at: formatWireTime(new Date(b.createdAt)),
        })),
      });
    },
  },

  '/admin/block': {
    method: 'POST',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const { block, added } = await admin.service.block(ctx.params.get('kind'), ctx.params.get('value'));
      admin.audit(admin.actor, 'block', `${block.kind} ${block.value}`, added ? 'done' : 'already');
      return ok({ kind: block.kind, value: block.value, added });
    },
  },

  '/admin/unblock': {
    method: 'POST',
    async handle(_service, ctx) {
      const admin = admitted(ctx);
      const [kind, value] = [ctx.params.get('kind'), ctx.params.get('value')];
      const removed = await admin.service.unblock(kind, value);
      const parsed = parseBlock(kind, value);
      const target = 'error' in parsed ? '' : `${parsed.kind} ${parsed.value}`;
      admin.audit(admin.actor, 'unblock', target, removed ? 'done' : 'not_found');
      if (!removed) throw new HttpError(404, 'not_found', 'No such block');
      return ok({ message: 'Block removed' });
    },
  },
};
