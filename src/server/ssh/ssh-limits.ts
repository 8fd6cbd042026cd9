/**
 * The SSH front's counts: connections in all and per client address (refused before the handshake, with
 * one line), app sessions per key; and what the metrics and the log report (open sessions, refusals by
 * reason, key logins against anonymous ones).
 */
export interface SshLimits {
  maxConnections: number;
  connectionsPerClient: number;
  sessionsPerKey: number;
}

export interface SshStats {
  connections: number;
  sessionsOpen: number;
  logins: { key: number; anonymous: number };
  refused: Record<string, number>;
}

export class SshCounts {
  readonly stats: SshStats = { connections: 0, sessionsOpen: 0, logins: { key: 0, anonymous: 0 }, refused: {} };
  private readonly perClient = new Map<string, number>();
  private readonly perKey = new Map<string, number>();

  constructor(private readonly limits: SshLimits) {}

  /** A connection from `client`: undefined when taken (and counted), else the reason it is refused. */
  connect(client: string): 'too-many-connections' | 'too-many-from-client' | undefined {
    if (this.stats.connections >= this.limits.maxConnections) return this.refuse('too-many-connections');
    if ((this.perClient.get(client) ?? 0) >= this.limits.connectionsPerClient)
      return this.refuse('too-many-from-client');
    this.stats.connections++;
    this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
    return undefined;
  }

  disconnect(client: string): void {
    this.stats.connections--;
    const left = (this.perClient.get(client) ?? 1) - 1;
    if (left <= 0) this.perClient.delete(client);
    else this.perClient.set(client, left);
  }

  refuse<R extends string>(reason: R): R {
    this.stats.refused[reason] = (this.stats.refused[reason] ?? 0) + 1;
    return reason;
  }

  /** An app session of `user` (undefined: anonymous, not limited): false when over the key's limit. */
  openSession(user: string | undefined): boolean {
    const open = user === undefined ? 0 : (this.perKey.get(user) ?? 0);
    if (open >= this.limits.sessionsPerKey) {
      this.refuse('too-many-sessions-for-key');
      return false;
    }
    if (user !== undefined) this.perKey.set(user, open + 1);
    this.stats.sessionsOpen++;
    return true;
  }

  closeSession(user: string | undefined): void {
    this.stats.sessionsOpen--;
    if (user === undefined) return;
    const left = (this.perKey.get(user) ?? 1) - 1;
    if (left <= 0) this.perKey.delete(user);
    else this.perKey.set(user, left);
  }
}
