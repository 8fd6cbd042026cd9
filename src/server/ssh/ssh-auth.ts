/**
 * Who a client is: the fingerprint of a public key it proved it holds, or nobody (anonymous, by
 * keyboard-interactive with no prompts). `none` is refused, naming both methods, so OpenSSH goes on to
 * offer its keys; passwords are refused. The login name is ignored.
 */
import { utils, type AuthContext } from 'ssh2';
import { fingerprintOf } from './host-key';

export const METHODS: ('publickey' | 'keyboard-interactive')[] = ['publickey', 'keyboard-interactive'];

export type Identity = { kind: 'key'; fingerprint: string } | { kind: 'anonymous' };

/** Answers one authentication request; calls `done` once the client is accepted. */
export function authenticate(ctx: AuthContext, done: (who: Identity) => void): void {
  if (ctx.method === 'keyboard-interactive') {
    done({ kind: 'anonymous' });
    ctx.accept();
    return;
  }
  if (ctx.method !== 'publickey') {
    ctx.reject(METHODS);
    return;
  }
  const parsed = utils.parseKey(ctx.key.data);
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || key instanceof Error) {
    ctx.reject(METHODS);
    return;
  }
  // Without a signature the client only asks whether this key would do: yes, any key would.
  if (!ctx.signature) {
    ctx.accept();
    return;
  }
  if (key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) {
    ctx.reject(METHODS);
    return;
  }
  done({ kind: 'key', fingerprint: fingerprintOf(ctx.key.data) });
  ctx.accept();
}
