/**
 * The admin API's own log: every action an admin token takes, one line each, naming the actor (the
 * token's name, never the token), the action, its target and how it came out. Event `admin.action`,
 * fields `actor`, `action`, `target`, `result`; the text reads `admin: alice deleted session abc`.
 */
import type { Logger } from '../observe/log';

/** What an admin request did: the route's name, as the log and the metrics call it. */
export type AdminAction =
  | 'stats'
  | 'sessions'
  | 'messages'
  | 'delete-session'
  | 'delete-message'
  | 'blocks'
  | 'block'
  | 'unblock';

/** How it came out: done, or nothing to do (not found, already there). */
export type AdminResult = 'done' | 'not_found' | 'already';

const VERBS: Record<AdminAction, string> = {
  stats: 'read the stats',
  sessions: 'searched sessions',
  messages: 'searched messages',
  'delete-session': 'deleted',
  'delete-message': 'deleted',
  blocks: 'listed the blocks',
  block: 'blocked',
  unblock: 'unblocked',
};

const OUTCOME: Record<AdminResult, string> = {
  done: '',
  not_found: ' (there was none)',
  already: ' (already blocked)',
};

export type AdminAudit = (actor: string, action: AdminAction, target: string, result?: AdminResult) => void;

/** Writes each admin action to `log` (info; never folded: each is someone's act). */
export function adminAudit(log: Logger): AdminAudit {
  return (actor, action, target, result = 'done') => {
    const what = target === '' ? VERBS[action] : `${VERBS[action]} ${target}`;
    log.event({
      level: 'info',
      event: 'admin.action',
      text: `admin: ${actor} ${what}${OUTCOME[result]}`,
      fields: { actor, action, target: target === '' ? undefined : target, result },
      fold: false,
    });
  };
}

/** A search's target as the log shows it: "recipient=a@b sender=c" (the parts given). */
export function filterTarget(filter: { recipient?: string; sender?: string; clientIp?: string }): string {
  const parts = [
    ['recipient', filter.recipient],
    ['sender', filter.sender],
    ['client_ip', filter.clientIp],
  ] as const;
  return parts
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}
