/**
 * A conformance fake of TempMail.lol's API v2, served over real HTTP on loopback, written from its
 * public documentation (the server wiki's "v2 API Endpoints": base https://api.tempmail.lol/v2, inbox
 * lifespans, `Authorization: Bearer <key>` for TempMail Plus/Ultra, the email fields) and the official
 * SDKs' README examples (createInbox with an optional prefix and domain -> {address, token}; checkInbox
 * -> {emails, expired}, `date` in epoch milliseconds, `html` null for a text mail; 402 when a key has no
 * time left, 403 for a bad key). Its captcha refusal (403 captcha_required, for some countries and
 * networks) is served when asked, as are 429 past a rate and a service that is down. TempMail.lol itself
 * is never reachable from the tests.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureServer, type FixtureServer, type Recorded } from '../client/fixture-server';

export interface TempmaillolMail {
  from?: string;
  subject?: string;
  body?: string;
  html?: string | null;
  /** Receive time (default now). */
  at?: Date;
}

export interface TempmaillolFakeOptions {
  /** The public domains addresses are made on (default tmlol.test, lolbox.test). */
  domains?: string[];
  /** API keys it knows (a request with another key answers 403); `noTime` keys answer 402. */
  keys?: string[];
  noTime?: string[];
  /** Every request answers 403 captcha_required (a country or network TempMail.lol asks a captcha of). */
  captcha?: boolean;
  /** Every request answers this status (503: down). */
  down?: number;
  /** Answer 429 past this many requests in any second. */
  ratePerSecond?: number;
  /** How long an inbox lives (default one hour, the free tier's). */
  lifetimeMs?: number;
}

export interface TempmaillolFake {
  baseUrl: string;
  server: FixtureServer;
  /** Every request: method, path, status, the bearer key it carried (if any). */
  log: { method: string; path: string; status: number; key?: string }[];
  /** Delivers a mail to an address's inbox. */
  deliver(address: string, mail: TempmaillolMail): void;
  inboxes(): string[];
  /** Makes an inbox expire now. */
  expire(address: string): void;
  close(): Promise<void>;
}

interface Inbox {
  address: string;
  token: string;
  createdAt: number;
  expired: boolean;
  emails: { from: string; to: string; subject: string; body: string; html: string | null; date: number; ip: string }[];
}

/** Starts the fake on 127.0.0.1, port 0 (its base URL is the API's host; paths start with /v2). */
export async function startTempmaillolFake(options: TempmaillolFakeOptions = {}): Promise<TempmaillolFake> {
  const domains = options.domains ?? ['tmlol.test', 'lolbox.test'];
  const lifetime = options.lifetimeMs ?? 60 * 60_000;
  const byToken = new Map<string, Inbox>();
  const log: TempmaillolFake['log'] = [];
  const recent: number[] = [];

  const server = await startFixtureServer((req, res, raw) => handle(req, res, raw));

  function send(
    req: Recorded,
    res: ServerResponse,
    status: number,
    body: unknown,
    key?: string,
    headers: Record<string, string> = {},
  ): void {
    log.push({ method: req.method, path: req.path, status, ...(key ? { key } : {}) });
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  function handle(req: Recorded, res: ServerResponse, raw: IncomingMessage): void {
    const key = /^Bearer (.+)$/.exec(String(raw.headers.authorization ?? ''))?.[1];
    if (options.down !== undefined) return send(req, res, options.down, { error: 'Service unavailable' }, key);
    if (options.ratePerSecond !== undefined) {
      const now = Date.now();
      while (recent.length && recent[0]! <= now - 1000) recent.shift();
      if (recent.length >= options.ratePerSecond)
        return send(req, res, 429, { error: 'rate_limited' }, key, { 'retry-after': '1' });
      recent.push(now);
    }
    if (options.captcha) return send(req, res, 403, { error: 'captcha_required', captcha_required: true }, key);
    if (key !== undefined && options.noTime?.includes(key)) return send(req, res, 402, { error: 'no_time_left' }, key);
    if (key !== undefined && !(options.keys ?? []).includes(key))
      return send(req, res, 403, { error: 'invalid_api_key' }, key);
    if (req.method === 'POST' && req.path === '/v2/inbox/create') {
      let body: Record<string, unknown> = {};
      try {
        body = req.body ? (JSON.parse(req.body) as Record<string, unknown>) : {};
      } catch {
        return send(req, res, 400, { error: 'invalid_json' }, key);
      }
      const domain =
        typeof body.domain === 'string'
          ? body.domain.toLowerCase()
          : domains[Math.floor(Math.random() * domains.length)]!;
      if (!domains.includes(domain)) return send(req, res, 400, { error: 'invalid_domain' }, key);
      const prefix =
        typeof body.prefix === 'string'
          ? body.prefix
              .toLowerCase()
              .replace(/[^a-z0-9]/g, '')
              .slice(0, 32)
          : '';
      // On its public domains a prefix gets characters of TempMail.lol's own after it.
      const address = `${prefix}${randomBytes(prefix ? 2 : 5).toString('hex')}@${domain}`;
      const token = randomBytes(24).toString('base64url');
      byToken.set(token, { address, token, createdAt: Date.now(), expired: false, emails: [] });
      return send(req, res, 201, { address, token }, key);
    }
    if (req.method === 'GET' && req.path === '/v2/inbox') {
      const inbox = byToken.get(req.query.get('token') ?? '');
      if (!inbox || inbox.expired || Date.now() - inbox.createdAt > lifetime)
        return send(req, res, 200, { emails: [], expired: true }, key);
      return send(req, res, 200, { emails: inbox.emails, expired: false }, key);
    }
    return send(req, res, 404, { error: 'not_found' }, key);
  }

  const inboxOf = (address: string) => [...byToken.values()].find((i) => i.address === address.toLowerCase());
  return {
    baseUrl: server.baseUrl,
    server,
    log,
    deliver(address, mail) {
      const inbox = inboxOf(address);
      if (!inbox) throw new Error(`the fake has no inbox ${address}`);
      inbox.emails.push({
        from: mail.from ?? 'someone@example.org',
        to: inbox.address,
        subject: mail.subject ?? '',
        body: mail.body ?? '',
        html: mail.html ?? null,
        date: (mail.at ?? new Date()).getTime(),
        ip: '192.0.2.1',
      });
    },
    inboxes: () => [...byToken.values()].map((i) => i.address),
    expire(address) {
      const inbox = inboxOf(address);
      if (inbox) inbox.expired = true;
    },
    close: () => server.close(),
  };
}
