/**
 * What the service counts about itself, in one place: the counters below are always kept (plain numbers,
 * read by `stats()` for the admin API and the tests), and mirrored into Prometheus metrics when `--metrics`
 * loaded them (prom-metrics.ts, a MetricsSink). The front ends call the Observer; they never know whether
 * metrics are on.
 */
import type { Logger } from './log';

/** Where counted events go besides the counters (prom-metrics.ts). */
export interface MetricsSink {
  messageStored(): void;
  messageRefused(reason: string): void;
  smtpConnectionRefused(reason: string): void;
  httpConnectionRefused(reason: string): void;
  tlsHandshake(result: 'ok' | 'failed'): void;
  httpRequest(route: string, status: number, seconds: number): void;
  storageError(): void;
  /** An SMTP transaction's DATA answered (stored, refused, failed), `seconds` after its end of DATA. */
  smtpTransaction(result: TransactionResult, seconds: number): void;
  /** A store operation (its method's name) answered after `seconds`. */
  storageQuery(op: string, seconds: number): void;
  sessionCreated(): void;
  /** A reload (SIGHUP) put in effect, refused (the running config kept), or failed. */
  reload(result: ReloadResult): void;
  /** An SMTP connection or sender refused by an admin block of `kind` (ip, sender, domain). */
  blocked(kind: string): void;
}

export type TransactionResult = 'stored' | 'refused' | 'failed';
export type ReloadResult = 'ok' | 'refused' | 'failed';

/** Values read when asked (gauges): each is set by the part of the service that knows it. */
export interface Gauges {
  smtpConnections(): number;
  httpConnections(): number;
  storageUp(): boolean;
  storage(): StorageGauge;
  imapAccounts(): Record<string, number>;
  /** The SSH front's counts (src/server/ssh/ssh-limits.ts), when it runs. */
  ssh(): { connections: number; sessionsOpen: number; logins: Record<string, number>; refused: Record<string, number> };
  /** GET /events streams open now. */
  eventStreams(): number;
  /** Sessions stored (expired ones until the purge); rejects when the store cannot count. */
  sessionsActive(): Promise<number>;
  /** The database pool's connections (Postgres only). */
  databasePool(): { inUse: number; idle: number; waiting: number };
  /** Whether the connection that LISTENs for other instances' notices is up (Postgres only). */
  pushUp(): boolean;
  /** When the certificate STARTTLS offers expires, ms since the epoch (TLS only). */
  tlsNotAfter(): number;
}

export interface StorageGauge {
  /** Whether new mail is refused because the storage cap is reached. */
  full: boolean;
  /** Stored messages and bytes as last measured (undefined before the first measure, or when none is made). */
  messages?: number;
  bytes?: number;
}

/** A snapshot for the admin API and the tests. */
export interface OpsStats {
  smtp: {
    connectionsOpen: number;
    connectionsAccepted: number;
    connectionsRefused: Record<string, number>;
    messagesStored: number;
    refused: Record<string, number>;
    tls: { ok: number; failed: number };
  };
  http: { requests: number; limited: number; connectionsOpen: number; connectionsRefused: Record<string, number> };
  storage: StorageGauge & { up: boolean; errors: number };
  imapAccounts: Record<string, number>;
}

/** Counts events; forwards them to the metrics sink when one is attached. */
export class Observer {
  sink: MetricsSink | undefined;
  private readonly gauges: Partial<Gauges> = {};
  private connectionsAccepted = 0;
  private readonly connectionsRefused = new Map<string, number>();
  private messagesStored = 0;
  private readonly refused = new Map<string, number>();
  private readonly tls = { ok: 0, failed: 0 };
  private httpRequests = 0;
  private httpLimited = 0;
  private readonly httpConnectionsRefused = new Map<string, number>();
  private storageErrors = 0;

  constructor(readonly log: Logger) {}

  /** Tells the observer where a gauge is read (the SMTP front, the storage cap, ...). */
  provide<K extends keyof Gauges>(name: K, read: Gauges[K]): void {
    this.gauges[name] = read;
  }

  gauge<K extends keyof Gauges>(name: K): Gauges[K] | undefined {
    return this.gauges[name];
  }

  smtpConnectionAccepted(): void {
    this.connectionsAccepted++;
  }

  smtpConnectionRefused(reason: string): void {
    bump(this.connectionsRefused, reason);
    this.sink?.smtpConnectionRefused(reason);
  }

  httpConnectionRefused(reason: string): void {
    bump(this.httpConnectionsRefused, reason);
    this.sink?.httpConnectionRefused(reason);
  }

  messageStored(): void {
    this.messagesStored++;
    this.sink?.messageStored();
  }

  messageRefused(reason: string): void {
    bump(this.refused, reason);
    this.sink?.messageRefused(reason);
  }

  tlsHandshake(result: 'ok' | 'failed'): void {
    this.tls[result]++;
    this.sink?.tlsHandshake(result);
  }

  httpRequest(route: string, status: number, ms: number): void {
    this.httpRequests++;
    if (status === 429) this.httpLimited++;
    this.sink?.httpRequest(route, status, ms / 1000);
  }

  storageError(): void {
    this.storageErrors++;
    this.sink?.storageError();
  }

  smtpTransaction(result: TransactionResult, ms: number): void {
    this.sink?.smtpTransaction(result, ms / 1000);
  }

  storageQuery(op: string, ms: number): void {
    this.sink?.storageQuery(op, ms / 1000);
  }

  sessionCreated(): void {
    this.sink?.sessionCreated();
  }

  reload(result: ReloadResult): void {
    this.sink?.reload(result);
  }

  blocked(kind: string): void {
    this.sink?.blocked(kind);
  }

  stats(): OpsStats {
    const storage = this.gauges.storage?.() ?? { full: false };
    return {
      smtp: {
        connectionsOpen: this.gauges.smtpConnections?.() ?? 0,
        connectionsAccepted: this.connectionsAccepted,
        connectionsRefused: Object.fromEntries(this.connectionsRefused),
        messagesStored: this.messagesStored,
        refused: Object.fromEntries(this.refused),
        tls: { ...this.tls },
      },
      http: {
        requests: this.httpRequests,
        limited: this.httpLimited,
        connectionsOpen: this.gauges.httpConnections?.() ?? 0,
        connectionsRefused: Object.fromEntries(this.httpConnectionsRefused),
      },
      storage: { ...storage, up: this.gauges.storageUp?.() ?? true, errors: this.storageErrors },
      imapAccounts: this.gauges.imapAccounts?.() ?? {},
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
