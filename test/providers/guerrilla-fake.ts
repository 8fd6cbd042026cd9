/**
 * A conformance fake of the Guerrilla Mail JSON API (GuerrillaMailAPI.html), served over real HTTP on
 * loopback, written from its documentation and from the answers its public clients handle: one URL,
 * `ajax.php`, the function in `f`; `sid_token` in every answer; an inbox that belongs to a name, so
 * `set_email_user` on any session opens that name's inbox; a session forgotten after it sat idle (the
 * service then starts a new one with a new random address, silently); a welcome message in every new
 * random inbox; numbers as strings; subjects and senders HTML-escaped; `fetch_email` answering `false`
 * for an id it does not have; `del_email` with `email_ids[]`; `forget_me`; attachments listed in
 * `att_info` ({f, t, p}) and served at `inbox?get_att`. Guerrilla Mail is never reachable from the
 * tests; this is what the guerrilla provider is held to. Its rate limits are unpublished: `failNext`
 * answers 429 with Retry-After (or any status) when a test asks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomInt } from 'node:crypto';
import { startFixtureServer, type FixtureServer, type Recorded } from '../client/fixture-server';
import type { FakeAttachment } from './mailtm-fake';

export interface GuerrillaMail {
  /** "Name <address>" or an address. */
  from?: string;
  subject?: string;
  /** The body: HTML unless `contentType` says text/plain. */
  body?: string;
  contentType?: string;
  attachments?: FakeAttachment[];
  at?: Date;
  /** The mail_id it is listed under (a hostile service's `../x`); default its number in the inbox. */
  id?: string;
  /** mail_recipient as served (default the inbox's address). */
  to?: string;
}

interface Stored {
  id: number;
  mail: GuerrillaMail;
  at: Date;
  read: boolean;
}

interface Session {
  name: string;
  createdAt: Date;
  lastSeen: number;
}

export interface GuerrillaFakeOptions {
  /** get_email_list's page size (the documentation says both 10 and "a maximum of 20"). */
  pageSize?: number;
  /** A session idle this long is forgotten (the service's is about 18 minutes). */
  idleMs?: number;
  /** Names set_email_user refuses: it answers the session's old address with `alias_error` saying why. */
  refuseNames?: Record<string, string>;
  /** Every call answers 200 with `{error: ...}`, as the API does for a function it cannot serve. */
  sayError?: string;
}

export interface GuerrillaFake {
  baseUrl: string;
  server: FixtureServer;
  log: { f: string; status: number }[];
  /** Delivers to a name's inbox (an address's local part); returns its mail_id. */
  deliver(address: string, mail: GuerrillaMail): number;
  /** The mail ids in a name's inbox, welcome included. */
  inbox(address: string): number[];
  /** Every session is forgotten, as after the idle timeout. */
  expireSessions(): void;
  failNext(status: number, count?: number, retryAfter?: number): void;
  close(): Promise<void>;
}

const DEFAULT_DOMAIN = 'guerrillamailblock.com';
const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#039;');
const localOf = (address: string) => address.split('@')[0]!.toLowerCase();

/** Starts the fake on 127.0.0.1, port 0. */
export async function startGuerrillaFake(options: GuerrillaFakeOptions = {}): Promise<GuerrillaFake> {
  const pageSize = options.pageSize ?? 10;
  const idleMs = options.idleMs ?? 18 * 60_000;
  const sessions = new Map<string, Session>();
  const inboxes = new Map<string, Stored[]>();
  const next = new Map<string, number>();
  const log: GuerrillaFake['log'] = [];
  let failures: { status: number; count: number; retryAfter?: number }[] = [];

  const server = await startFixtureServer((req, res, raw) => handle(req, res, raw));

  function store(name: string, mail: GuerrillaMail): number {
    const list = inboxes.get(name) ?? [];
    inboxes.set(name, list);
    const id = (next.get(name) ?? 0) + 1;
    next.set(name, id);
    list.push({ id, mail, at: mail.at ?? new Date(), read: false });
    return id;
  }

  function newInbox(name: string): void {
    if (inboxes.has(name)) return;
    inboxes.set(name, []);
    store(name, {
      from: 'no-reply@guerrillamail.com',
      subject: 'Welcome to Guerrilla Mail',
      body: "<p>Dear Random User,</p><p>Thank you for using Guerrilla Mail - your temporary email address friend and spam fighter's ally!</p>",
    });
  }

  function sessionOf(sid: string | null): { sid: string; session: Session; fresh: boolean } {
    const now = Date.now();
    const known = sid ? sessions.get(sid) : undefined;
    if (sid && known && now - known.lastSeen < idleMs) {
      known.lastSeen = now;
      return { sid, session: known, fresh: false };
    }
    // Unknown or idle too long: a new session on a new random address, with its welcome mail.
    const name = `${'abcdefghijklmnopqrstuvwxyz'[randomInt(26)]}${randomBytes(4).toString('hex')}`;
    newInbox(name);
    const session = { name, createdAt: new Date(), lastSeen: now };
    const fresh = randomBytes(13).toString('hex');
    sessions.set(fresh, session);
    return { sid: fresh, session, fresh: true };
  }

  const address = (s: Session) => ({
    email_addr: `${s.name}@${DEFAULT_DOMAIN}`,
    email_timestamp: Math.floor(s.createdAt.getTime() / 1000),
    alias: `${s.name.slice(0, 4)}+${randomBytes(2).toString('hex')}@sharklasers.com`,
    alias_error: '',
  });

  const summary = (m: Stored) => ({
    mail_id: m.mail.id ?? String(m.id),
    mail_from: escapeHtml(m.mail.from ?? 'someone@example.org'),
    mail_subject: escapeHtml(m.mail.subject ?? ''),
    mail_excerpt: escapeHtml((m.mail.body ?? '').replace(/<[^>]*>/g, ' ').slice(0, 80)),
    mail_timestamp: String(Math.floor(m.at.getTime() / 1000)),
    mail_read: m.read ? '1' : '0',
    mail_date: m.at.toISOString().slice(11, 19),
    att: String(m.mail.attachments?.length ?? 0),
    mail_size: String((m.mail.body ?? '').length),
  });

  function reply(
    f: string,
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    log.push({ f, status });
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function handle(req: Recorded, res: ServerResponse, _raw: IncomingMessage): void {
    const form = new URLSearchParams(req.method === 'POST' ? req.body : '');
    const param = (k: string) => form.get(k) ?? req.query.get(k);
    const f = req.path === '/inbox' ? 'get_att' : (req.query.get('f') ?? '');
    const injected = failures.find((x) => x.count > 0);
    if (injected) {
      injected.count -= 1;
      failures = failures.filter((x) => x.count > 0);
      return reply(
        f,
        res,
        injected.status,
        { error: 'unavailable' },
        injected.retryAfter !== undefined ? { 'retry-after': String(injected.retryAfter) } : {},
      );
    }
    if (req.path === '/inbox' && req.query.has('get_att')) {
      const known = sessions.get(req.query.get('sid_token') ?? '');
      const mail = known ? inboxes.get(known.name)?.find((m) => String(m.id) === req.query.get('email_id')) : undefined;
      const part = Number(req.query.get('part_id')) - 2;
      const att = mail?.mail.attachments?.[part];
      if (!att) return reply(f, res, 404, { error: 'not found' });
      log.push({ f, status: 200 });
      res.writeHead(200, {
        'content-type': att.contentType,
        'content-disposition': `attachment; filename="${att.filename}"`,
      });
      res.end(att.content);
      return;
    }
    if (req.path !== '/ajax.php') return reply(f, res, 404, { error: 'not found' });
    if (options.sayError !== undefined) return reply(f, res, 200, { error: options.sayError });
    const { sid, session } = sessionOf(param('sid_token'));
    const inbox = () => inboxes.get(session.name) ?? [];
    switch (f) {
      case 'get_email_address':
        return reply(f, res, 200, { ...address(session), sid_token: sid });
      case 'set_email_user': {
        const user = (param('email_user') ?? '').toLowerCase();
        if (!/^[a-z0-9._+-]{1,64}$/.test(user))
          return reply(f, res, 200, { ...address(session), alias_error: 'Invalid email user', sid_token: sid });
        const refused = options.refuseNames?.[user];
        if (refused !== undefined)
          return reply(f, res, 200, { ...address(session), alias_error: refused, sid_token: sid });
        session.name = user;
        if (!inboxes.has(user)) inboxes.set(user, []);
        session.createdAt = new Date();
        return reply(f, res, 200, { ...address(session), sid_token: sid });
      }
      case 'check_email': {
        const seq = Number(param('seq') ?? '0');
        const list = inbox()
          .filter((m) => m.id > seq)
          .sort((a, b) => b.id - a.id);
        return reply(f, res, 200, {
          list: list.map(summary),
          count: String(inbox().length),
          email: `${session.name}@${DEFAULT_DOMAIN}`,
          ts: Math.floor(Date.now() / 1000),
          sid_token: sid,
        });
      }
      case 'get_email_list': {
        const offset = Math.max(0, Number(param('offset') ?? '0') || 0);
        const list = [...inbox()].sort((a, b) => b.id - a.id).slice(offset, offset + pageSize);
        return reply(f, res, 200, {
          list: list.map(summary),
          count: String(inbox().length),
          email: `${session.name}@${DEFAULT_DOMAIN}`,
          ts: Math.floor(Date.now() / 1000),
          sid_token: sid,
        });
      }
      case 'fetch_email': {
        const mail = inbox().find((m) => String(m.id) === param('email_id'));
        if (!mail) return reply(f, res, 200, false);
        mail.read = true;
        return reply(f, res, 200, {
          ...summary(mail),
          mail_body: mail.mail.body ?? '',
          content_type: mail.mail.contentType ?? 'text/html',
          mail_recipient: escapeHtml(mail.mail.to ?? `${session.name}@${DEFAULT_DOMAIN}`),
          att_info: (mail.mail.attachments ?? []).map((a, i) => ({
            f: escapeHtml(a.filename),
            t: a.contentType,
            p: String(i + 2),
          })),
          sid_token: sid,
        });
      }
      case 'del_email': {
        const ids = [...form.getAll('email_ids[]'), ...req.query.getAll('email_ids[]')];
        const list = inbox();
        const deleted: string[] = [];
        for (const id of ids) {
          const i = list.findIndex((m) => String(m.id) === id);
          if (i >= 0) {
            list.splice(i, 1);
            deleted.push(id);
          }
        }
        return reply(f, res, 200, { deleted_ids: deleted, sid_token: sid });
      }
      case 'forget_me':
        sessions.delete(sid);
        return reply(f, res, 200, true);
      default:
        return reply(f, res, 200, { error: 'unknown function' });
    }
  }

  return {
    baseUrl: server.baseUrl,
    server,
    log,
    deliver(addr, mail) {
      const name = localOf(addr);
      if (!inboxes.has(name)) inboxes.set(name, []);
      return store(name, mail);
    },
    inbox: (addr) => (inboxes.get(localOf(addr)) ?? []).map((m) => m.id),
    expireSessions: () => sessions.clear(),
    failNext(status, count = 1, retryAfter) {
      failures.push({ status, count, retryAfter });
    },
    close: () => server.close(),
  };
}
