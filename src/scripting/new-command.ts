/**
 * `new`: creates an address and saves it. With `--provider auto` (or "provider": "auto") it tries the
 * providers of `providerOrder` in turn and keeps the first that answers, saying on stderr which one it
 * fell back from and why (each has AUTO_TRY_MS: client/auto-try.ts); the address is saved with the provider it lives on. An account made before its
 * sign-in (mail.tm) is saved first, so a failed sign-in never leaves an account nobody can use.
 */
import { ApiError, canFallBack, isApiError } from '../client/api-error';
import { orderedRefs, PROVIDER_INFO, type ProviderRef } from '../client/providers';
import { normalizeBaseUrl, type SavedSession } from '../state/saved-sessions';
import type { CreateSessionOptions, Domain, DomainList, Session } from '../model/mail-types';
import { safeLine } from '../text/safe-text';
import { formatCountdown, secondsLeft } from '../platform/time';
import { flag, parseCommandArgs, show, str, type Parsed } from './args';
import { AUTO_TRY_MS, withinDeadline } from '../client/auto-try';
import { localTarget, makeContext, type Context } from './context';
import { json, sessionJson } from './script-format';
import { EXIT, ScriptError, UsageError, type ScriptIo } from './io';

/** `new [--prefix P] [--domain D] [--extmail [--account EMAIL]] [--json] [--show-token]`: creates and saves an address. */
export async function runNew(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('new', args);
  const account = str(parsed, 'account');
  // --account names an external account, so it implies --extmail.
  const extmail = flag(parsed, 'extmail') || account !== undefined;
  if (extmail && str(parsed, 'domain') !== undefined)
    throw new UsageError('new: --domain and --extmail exclude each other');
  const ctx = makeContext(io, parsed);
  const auto = ctx.settings.provider === 'auto';
  const refs = auto ? orderedRefs(ctx.settings) : [ctx.configured()];
  if (extmail && !refs.some((r) => r.provider === 'tempmail')) {
    throw new UsageError(
      `new: ${PROVIDER_INFO[refs[0]!.provider].label} has no external-mail accounts; --extmail is for services of the interface (--provider tempmail)`,
    );
  }
  const tried: string[] = [];
  for (const [i, ref] of refs.entries()) {
    // External-mail aliases are a tempmail service's: auto goes straight to one.
    if (extmail && ref.provider !== 'tempmail') continue;
    if (auto && tried.length === 0) ctx.info(`trying ${PROVIDER_INFO[ref.provider].label}`);
    try {
      // With auto, each provider has AUTO_TRY_MS to answer, then the next is tried.
      if (auto) return await withinDeadline(AUTO_TRY_MS, (signal) => createOn(ctx, ref, parsed, extmail, signal));
      return await createOn(ctx, ref, parsed, extmail);
    } catch (error) {
      const next = refs.slice(i + 1).find((r) => !extmail || r.provider === 'tempmail');
      if (!auto || !canFallBack(error)) throw error;
      const why = `${PROVIDER_INFO[ref.provider].label}: ${safeLine(error.message, 160)}`;
      tried.push(why);
      if (!next)
        throw new ScriptError(`no provider made an address (${tried.join('; ')}); see tempmail-tui providers --check`);
      ctx.info(`${why}; trying ${PROVIDER_INFO[next.provider].label}`);
    }
  }
  throw new ScriptError('no provider is in providerOrder for that');
}

/** Creates, saves and prints an address on `ref`; throws what the provider said. */
async function createOn(
  ctx: Context,
  ref: ProviderRef,
  parsed: Parsed,
  extmail: boolean,
  signal?: AbortSignal,
): Promise<number> {
  const { io } = ctx;
  const domain = str(parsed, 'domain');
  const account = str(parsed, 'account');
  const provider = await ctx.open(ref, signal ? { signal } : {});
  const options: CreateSessionOptions = {};
  const prefix = str(parsed, 'prefix');
  if (prefix !== undefined) options.prefix = prefix;
  if (domain !== undefined || account !== undefined) {
    const list = await provider.listDomains();
    // A provider that picks the domain itself lists none: a domain asked for is passed on for it to judge.
    if (domain !== undefined && list.anyDomain && list.domains.length === 0)
      options.domain = domain.trim().toLowerCase();
    else if (domain !== undefined) {
      const found = findDomain(list, domain);
      options.domainId = found.id;
      options.domain = found.domain;
    }
    if (account !== undefined) options.extmailId = findAccount(list, account);
  }
  if (extmail) {
    options.useExtmail = true;
    if (account === undefined) options.extmailAuto = true;
  }
  const showToken = flag(parsed, 'show-token');
  const print = (s: SavedSession) => {
    if (flag(parsed, 'json')) io.stdout.write(json(sessionJson(s, showToken)));
    else io.stdout.write(`${s.email}\n${showToken && s.token ? `${s.token}\n` : ''}`);
  };
  // An address that exists at the provider before its token (a mail.tm account) is saved first, so a
  // failed sign-in leaves an address the next command signs in to, never an account nobody can use.
  let kept: SavedSession | undefined;
  const hooks = {
    keep: (pending: Session) => {
      try {
        kept = ctx.sessions.save(pending, ref.baseUrl, ref.provider);
      } catch {
        // Said below, when saving the whole session fails the same way.
      }
    },
  };
  let session: Session;
  try {
    session = await provider.createSession(options, hooks);
  } catch (error) {
    if (kept) return signInLater(ctx, kept, error, print, showToken);
    // "That name is taken" names no name: say which one (the service picked the domain if none was given).
    if (isApiError(error) && error.kind === 'prefix_taken' && prefix !== undefined) {
      throw new ApiError(
        'prefix_taken',
        `${safeLine(prefix, 64)}${domain !== undefined ? `@${safeLine(domain, 253)}` : ''} is taken; try another name`,
        error.details,
      );
    }
    // A malformed request from `new` is one of its flags the service refused (a name against its rules):
    // the user's to correct, so a usage error (exit 2), in the service's words.
    if (isApiError(error) && error.kind === 'bad_request' && (prefix !== undefined || domain !== undefined)) {
      throw new UsageError(`new: ${safeLine(error.message, 300)}`);
    }
    throw error;
  }
  let saved: SavedSession;
  try {
    saved = ctx.sessions.save(session, ref.baseUrl, ref.provider);
  } catch (error) {
    // The address exists on the service whether or not it was saved: print it first, so a script (or
    // a person) still has it, then say it was not saved (later commands and the app will not know it).
    print({ ...session, provider: ref.provider, baseUrl: normalizeBaseUrl(ref.baseUrl), createdAt: ctx.now() });
    const why = error instanceof Error ? error.message : String(error);
    throw new ScriptError(
      `${session.email} was created but not saved (${why}); list, wait, read and the app will not find it`,
    );
  }
  print(saved);
  const lasts =
    saved.expiresAt === null
      ? 'no expiry (`tempmail-tui forget --delete-account` deletes it)'
      : `expires in ${formatCountdown(secondsLeft(saved.expiresAt, ctx.now()))}`;
  const on = ref.provider === 'tempmail' ? '' : ` on ${PROVIDER_INFO[ref.provider].label}`;
  ctx.info(`Saved ${saved.email}${on}; ${lasts}. Wait for mail: tempmail-tui wait --print code`);
  if (ref.baseUrl === ctx.localKey) ctx.info(await localTarget(ctx, saved.email));
  return EXIT.ok;
}

/**
 * The address was made and saved, but its sign-in failed (a 429 past the wait, the network): it is
 * printed, and the next command that needs it signs in. Only `--show-token` fails: there is no token yet.
 */
function signInLater(
  ctx: Context,
  kept: SavedSession,
  error: unknown,
  print: (s: SavedSession) => void,
  showToken: boolean,
): number {
  print(kept);
  const why = isApiError(error) ? safeLine(error.message, 200) : 'the sign-in failed';
  const label = PROVIDER_INFO[kept.provider].label;
  const said = `${kept.email} was created and saved, but ${label} did not sign it in yet (${why}); the next command that needs it signs in`;
  if (showToken) throw new ScriptError(`${said}; no token to show yet`);
  ctx.info(said);
  return EXIT.ok;
}

// A domain by name (case-insensitive) or by id, as listed by `domains`.
function findDomain(list: DomainList, wanted: string): Domain {
  const w = wanted.trim().toLowerCase();
  const found = list.domains.find((d) => d.domain.toLowerCase() === w || String(d.id) === w);
  if (!found) {
    const names = list.domains.map((d) => d.domain).join(', ') || 'none';
    throw new ScriptError(`new: no domain ${show(wanted)} on this service (available: ${names})`);
  }
  return found;
}

function findAccount(list: DomainList, wanted: string): number {
  const w = wanted.trim().toLowerCase();
  const found = list.extmailAccounts.find((a) => a.email.toLowerCase() === w || String(a.id) === w);
  if (!found) {
    const names = list.extmailAccounts.map((a) => a.email).join(', ') || 'none';
    throw new ScriptError(`new: no external-mail account ${show(wanted)} on this service (available: ${names})`);
  }
  return found.id;
}
