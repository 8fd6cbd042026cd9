/**
 * A conformance fake of the mail.tm API (docs.mail.tm), served over real HTTP on loopback, written from
 * its documentation and from the answers its public clients handle: JSON-LD (`hydra:member`,
 * `hydra:totalItems`, `hydra:view`) or plain JSON when asked with `Accept: application/json`, string
 * (hex) ids, 30 messages a page, `html` as a list, bearer JWTs from POST /token, 401 with
 * `{code, message}` ("JWT Token not found", "Expired JWT Token", "Invalid credentials."), 422 with a
 * ConstraintViolationList for a taken or bad address, 404 as a hydra:Error, 429 with Retry-After past
 * the documented 8 requests per second (when `ratePerSecond` is set), attachments behind their
 * downloadUrl, message sources at /sources/{id}, seen through PATCH (merge-patch), and new mail
 * published to a Mercure hub (server-sent events) on the account's topic. mail.tm itself is never
 * reachable from the tests; this is what the mailtm provider is held to.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureServer, type FixtureServer, type Recorded } from '../client/fixture-server';
import {
  accountShape,
  collectionJson,
  messageShape,
  problemJson,
  rawShape,
  storedSize,
  summaryShape,
  type Account,
  type FakeMail,
  type Stored,
  type Violation,
} from './mailtm-fake-shapes';

export type { FakeAttachment, FakeMail } from './mailtm-fake-shapes';

export interface MailtmFakeOptions {
  domains?: { domain: string; isActive?: boolean; isPrivate?: boolean }[];
  /** Answer 429 past this many requests in any second (the documented limit is 8); off when unset. */
  ratePerSecond?: number;
  /**
   * The event hub: serves (`ok`), refuses with 503 (`fail`), closes each stream once open (`close`), or
   * is hostile (`flood`): streams `data:` lines of 60 KB and never the blank line that ends an event,
   * for as long as the client reads (up to FLOOD_BYTES a stream).
   */
  mercure?: 'ok' | 'fail' | 'close' | 'flood';
  /** 422s as a bare violation list: the empty title and the violations, no description or detail. */
  bareViolations?: boolean;
  /** Answer plain JSON whatever the client asks (API Platform's `application/json`). */
  format?: 'jsonld' | 'json';
  pageSize?: number;
}

export interface MailtmFake {
  baseUrl: string;
  server: FixtureServer;
  /** Every request: method, path, status, whether it carried a bearer token, when it arrived (ms). */
  log: { method: string; path: string; status: number; bearer: boolean; at: number }[];
  /** The most requests that arrived within any one second (the rate limit's own count), the event hub aside. */
  busiestSecond(): number;
  /** The requests answered 429 by the rate limit (not by failNext). */
  limited(): number;
  accounts(): { id: string; address: string }[];
  /** The message ids in an account's inbox. */
  inbox(address: string): string[];
  /** Delivers a mail to an account's inbox and publishes it on the hub; returns the message id. */
  deliver(address: string, mail: FakeMail): string;
  /** Every token issued so far stops working (401 "Expired JWT Token"), as after a JWT's expiry. */
  expireTokens(): void;
  /** The next `count` requests (of `path`, when given) answer `status` (with Retry-After when given). */
  failNext(status: number, count?: number, retryAfter?: number, path?: string): void;
  /** Live hub subscribers per account id. */
  subscribers(accountId: string): number;
  /** `flood`: the bytes each flooded stream took before it was closed (or hit FLOOD_BYTES), in order. */
  floods: number[];
  seen(id: string): boolean | undefined;
  close(): Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
/** What one flooded stream sends at most: far past any bound a client should have (1 MiB an event). */
export const FLOOD_BYTES = 64 * 1024 * 1024;
const FLOOD_LINE = `data: ${'x'.repeat(60 * 1024)}\n`;
const LD = 'application/ld+json; charset=utf-8';

/** Starts the fake on 127.0.0.1, port 0. */
export async function startMailtmFake(options: MailtmFakeOptions = {}): Promise<MailtmFake> {
  const domains = (
    options.domains ?? [
      { domain: 'mailtm.test' },
      { domain: 'inbox-tm.test' },
      { domain: 'old-tm.test', isActive: false },
      { domain: 'private-tm.test', isPrivate: true },
    ]
  ).map((d) => ({
    id: hex(12),
    domain: d.domain,
    isActive: d.isActive ?? true,
    isPrivate: d.isPrivate ?? false,
  }));
  const pageSize = options.pageSize ?? 30;
  const accounts = new Map<string, Account>();
  const tokens = new Map<string, string>();
  const expired = new Set<string>();
  const messages: Stored[] = [];
  const hubs = new Map<string, Set<ServerResponse>>();
  const log: MailtmFake['log'] = [];
  const recent: number[] = [];
  const floods: number[] = [];
  let failures: { status: number; count: number; retryAfter?: number; path?: string }[] = [];

  const server = await startFixtureServer((req, res, raw) => handle(req, res, raw));
  // Arrivals counted by the rate limit, and how many it refused.
  const arrivals: number[] = [];
  let refused = 0;

  function answer(
    req: Recorded,
    raw: IncomingMessage,
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ): void {
    log.push({
      method: req.method,
      path: req.path,
      status,
      bearer: /^Bearer /.test(String(raw.headers.authorization ?? '')),
      at: Date.now(),
    });
    if (body === undefined) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    const plain = options.format === 'json' || !String(raw.headers.accept ?? '').includes('application/ld+json');
    res.writeHead(status, { 'content-type': plain ? 'application/json; charset=utf-8' : LD, ...headers });
    res.end(JSON.stringify(body));
  }

  const ld = (raw: IncomingMessage) =>
    options.format !== 'json' && String(raw.headers.accept ?? '').includes('application/ld+json');
  const problem = (raw: IncomingMessage, status: number, description: string, violation?: Violation) =>
    problemJson(ld(raw), status, description, violation, options.bareViolations);
  const collection = (
    raw: IncomingMessage,
    path: string,
    items: unknown[],
    total: number,
    page: number,
    last: number,
  ) => collectionJson(ld(raw), path, items, total, page, last);
  const accountOf = (id: string) => [...accounts.values()].find((a) => a.id === id)!;
  const accountJson = (a: Account) =>
    accountShape(
      a,
      messages.filter((m) => m.accountId === a.id).reduce((n, m) => n + storedSize(m), 0),
    );
  const summaryJson = (m: Stored) => summaryShape(m, accountOf(m.accountId).address);
  const messageJson = (m: Stored) => messageShape(m, accountOf(m.accountId).address);
  const raw822 = (m: Stored) => rawShape(m, accountOf(m.accountId).address);

  /** The account a request's bearer token stands for, or the 401 already sent. */
  function authorize(req: Recorded, raw: IncomingMessage, res: ServerResponse): Account | null {
    const header = String(raw.headers.authorization ?? '');
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    if (!token) {
      answer(req, raw, res, 401, { code: 401, message: 'JWT Token not found' });
      return null;
    }
    if (expired.has(token)) {
      answer(req, raw, res, 401, { code: 401, message: 'Expired JWT Token' });
      return null;
    }
    const id = tokens.get(token);
    const account = id ? accountOf(id) : undefined;
    if (!account) {
      answer(req, raw, res, 401, { code: 401, message: 'Invalid JWT Token' });
      return null;
    }
    return account;
  }

  function handle(req: Recorded, res: ServerResponse, raw: IncomingMessage): void {
    const path = req.path.replace(/^\/+/, '');
    const injected = failures.find((f) => f.count > 0 && (f.path === undefined || f.path === path));
    if (injected) {
      injected.count -= 1;
      failures = failures.filter((f) => f.count > 0);
      return answer(
        req,
        raw,
        res,
        injected.status,
        problem(raw, injected.status, injected.status === 429 ? 'Too Many Requests' : 'Service Unavailable'),
        injected.retryAfter !== undefined ? { 'retry-after': String(injected.retryAfter) } : {},
      );
    }
    if (path !== '.well-known/mercure') arrivals.push(Date.now());
    if (options.ratePerSecond !== undefined && path !== '.well-known/mercure') {
      const now = Date.now();
      while (recent.length && recent[0]! <= now - 1000) recent.shift();
      if (recent.length >= options.ratePerSecond) {
        refused += 1;
        return answer(req, raw, res, 429, problem(raw, 429, 'Too Many Requests'), { 'retry-after': '1' });
      }
      recent.push(now);
    }
    const body = (() => {
      try {
        return req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
      } catch {
        return null;
      }
    })();
    const page = Math.max(1, Number(req.query.get('page') ?? '1') || 1);

    if (req.method === 'GET' && path === 'domains') {
      const all = domains.map((d) => ({
        '@id': `/domains/${d.id}`,
        '@type': 'Domain',
        ...d,
        createdAt: '2024-01-01T00:00:00+00:00',
        updatedAt: '2024-01-01T00:00:00+00:00',
      }));
      const last = Math.max(1, Math.ceil(all.length / pageSize));
      return answer(
        req,
        raw,
        res,
        200,
        collection(raw, 'domains', all.slice((page - 1) * pageSize, page * pageSize), all.length, page, last),
      );
    }
    if (req.method === 'POST' && (path === 'accounts' || path === 'token')) {
      if (!body || typeof body.address !== 'string' || typeof body.password !== 'string') {
        return answer(req, raw, res, 400, problem(raw, 400, 'The input data is misformatted.'));
      }
      const address = body.address.toLowerCase();
      if (path === 'token') {
        const account = accounts.get(address);
        if (!account || account.password !== body.password)
          return answer(req, raw, res, 401, { code: 401, message: 'Invalid credentials.' });
        const token = `${Buffer.from('{"typ":"JWT","alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify({ id: account.id, iat: Date.now() })).toString('base64url')}.${hex(32)}`;
        tokens.set(token, account.id);
        return answer(req, raw, res, 200, { token, id: account.id });
      }
      const [local, domain] = address.split('@');
      const known = domains.find((d) => d.domain === domain && d.isActive && !d.isPrivate);
      if (!local || !/^[a-z0-9._-]{3,64}$/.test(local) || !known) {
        return answer(
          req,
          raw,
          res,
          422,
          problem(raw, 422, 'address: This value is not valid.', {
            propertyPath: 'address',
            message: 'This value is not valid.',
          }),
        );
      }
      if (body.password.length < 6) {
        return answer(
          req,
          raw,
          res,
          422,
          problem(raw, 422, 'password: This value is too short.', {
            propertyPath: 'password',
            message: 'This value is too short.',
          }),
        );
      }
      if (accounts.has(address)) {
        return answer(
          req,
          raw,
          res,
          422,
          problem(raw, 422, 'address: This value is already used.', {
            propertyPath: 'address',
            message: 'This value is already used.',
          }),
        );
      }
      const account = { id: hex(12), address, password: body.password, createdAt: new Date() };
      accounts.set(address, account);
      return answer(req, raw, res, 201, { '@context': '/contexts/Account', ...accountJson(account) });
    }
    if (path === '.well-known/mercure' && req.method === 'GET') return subscribe(req, raw, res);

    const account = authorize(req, raw, res);
    if (!account) return;
    if (req.method === 'GET' && path === 'me') return answer(req, raw, res, 200, accountJson(account));
    const accountPath = /^accounts\/([A-Za-z0-9]+)$/.exec(path);
    if (accountPath) {
      if (accountPath[1] !== account.id) return answer(req, raw, res, 403, problem(raw, 403, 'Access Denied.'));
      if (req.method === 'DELETE') {
        accounts.delete(account.address);
        for (const [t, id] of tokens) if (id === account.id) tokens.delete(t);
        for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.accountId === account.id) messages.splice(i, 1);
        return answer(req, raw, res, 204);
      }
      return answer(req, raw, res, 200, accountJson(account));
    }
    const mine = messages.filter((m) => m.accountId === account.id).sort((a, b) => b.at.getTime() - a.at.getTime());
    if (req.method === 'GET' && path === 'messages') {
      const last = Math.max(1, Math.ceil(mine.length / pageSize));
      const items = mine.slice((page - 1) * pageSize, page * pageSize).map(summaryJson);
      return answer(req, raw, res, 200, collection(raw, 'messages', items, mine.length, page, last));
    }
    const one = /^(messages|sources)\/([A-Za-z0-9]+)(?:\/(attachment)\/([A-Za-z0-9]+)|\/(download))?$/.exec(path);
    const found = one ? mine.find((m) => m.id === one[2]) : undefined;
    if (!one || !found) return answer(req, raw, res, 404, problem(raw, 404, 'Not Found'));
    if (one[1] === 'sources') {
      if (req.method !== 'GET') return answer(req, raw, res, 405, problem(raw, 405, 'Method Not Allowed'));
      return answer(req, raw, res, 200, {
        '@id': `/sources/${found.id}`,
        '@type': 'Source',
        id: found.id,
        downloadUrl: `/messages/${found.id}/download`,
        data: raw822(found),
      });
    }
    if (one[3] === 'attachment') {
      const att = found.attachments.find((a) => a.id === one[4]);
      if (!att) return answer(req, raw, res, 404, problem(raw, 404, 'Not Found'));
      log.push({ method: req.method, path: req.path, status: 200, bearer: true, at: Date.now() });
      res.writeHead(200, {
        'content-type': att.contentType,
        'content-disposition': `attachment; filename="${att.filename}"`,
      });
      res.end(att.content);
      return;
    }
    if (one[5] === 'download') {
      log.push({ method: req.method, path: req.path, status: 200, bearer: true, at: Date.now() });
      res.writeHead(200, { 'content-type': 'message/rfc822' });
      res.end(raw822(found));
      return;
    }
    if (req.method === 'GET') return answer(req, raw, res, 200, messageJson(found));
    if (req.method === 'DELETE') {
      messages.splice(messages.indexOf(found), 1);
      return answer(req, raw, res, 204);
    }
    if (req.method === 'PATCH') {
      if (!String(raw.headers['content-type'] ?? '').startsWith('application/merge-patch+json')) {
        return answer(req, raw, res, 415, problem(raw, 415, 'The content-type "application/json" is not supported.'));
      }
      if (body && typeof body.seen === 'boolean') found.seen = body.seen;
      return answer(req, raw, res, 200, messageJson(found));
    }
    return answer(req, raw, res, 405, problem(raw, 405, 'Method Not Allowed'));
  }

  function subscribe(req: Recorded, raw: IncomingMessage, res: ServerResponse): void {
    if (options.mercure === 'fail') return answer(req, raw, res, 503, problem(raw, 503, 'Service Unavailable'));
    const account = authorize(req, raw, res);
    if (!account) return;
    const topics = req.query.getAll('topic');
    if (!topics.includes(`/accounts/${account.id}`))
      return answer(req, raw, res, 403, problem(raw, 403, 'Access Denied.'));
    log.push({ method: req.method, path: req.path, status: 200, bearer: true, at: Date.now() });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(':\n\n');
    if (options.mercure === 'close') {
      res.end();
      return;
    }
    if (options.mercure === 'flood') return flood(res);
    const set = hubs.get(account.id) ?? new Set();
    set.add(res);
    hubs.set(account.id, set);
    res.on('close', () => set.delete(res));
  }

  // Data lines as fast as the client takes them (waiting for 'drain'), never an event's end.
  function flood(res: ServerResponse): void {
    const index = floods.push(0) - 1;
    let closed = false;
    res.on('close', () => (closed = true));
    const more = () => {
      while (!closed && floods[index]! < FLOOD_BYTES) {
        floods[index]! += FLOOD_LINE.length;
        if (!res.write(FLOOD_LINE)) return void res.once('drain', more);
      }
      if (!closed) res.end();
    };
    more();
  }

  return {
    baseUrl: server.baseUrl,
    server,
    log,
    floods,
    busiestSecond() {
      let most = 0;
      for (let i = 0, j = 0; j < arrivals.length; j++) {
        while (arrivals[i]! <= arrivals[j]! - 1000) i++;
        most = Math.max(most, j - i + 1);
      }
      return most;
    },
    limited: () => refused,
    accounts: () => [...accounts.values()].map((a) => ({ id: a.id, address: a.address })),
    inbox: (address) => {
      const account = accounts.get(address.toLowerCase());
      return account ? messages.filter((m) => m.accountId === account.id).map((m) => m.id) : [];
    },
    deliver(address, mail) {
      const account = accounts.get(address.toLowerCase());
      if (!account) throw new Error(`the fake has no account ${address}`);
      const stored: Stored = {
        id: mail.id ?? hex(12),
        accountId: account.id,
        mail,
        at: mail.at ?? new Date(),
        seen: mail.seen ?? false,
        attachments: (mail.attachments ?? []).map((a, i) => ({ ...a, id: `ATTACH${String(i + 1).padStart(6, '0')}` })),
      };
      messages.push(stored);
      for (const sub of hubs.get(account.id) ?? []) {
        sub.write(
          `id: urn:uuid:${hex(8)}\nevent: message\ndata: ${JSON.stringify({ ...summaryJson(stored), '@context': '/contexts/Message' })}\n\n`,
        );
        sub.write(`data: ${JSON.stringify(accountJson(account))}\n\n`);
      }
      return stored.id;
    },
    expireTokens() {
      for (const t of tokens.keys()) expired.add(t);
      tokens.clear();
    },
    failNext(status, count = 1, retryAfter, path) {
      failures.push({ status, count, retryAfter, path });
    },
    subscribers: (id) => hubs.get(id)?.size ?? 0,
    seen: (id) => messages.find((m) => m.id === id)?.seen,
    async close() {
      for (const set of hubs.values()) for (const r of set) r.destroy();
      await server.close();
    },
  };
}
