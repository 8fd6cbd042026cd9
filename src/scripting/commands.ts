/** The one-shot scripting commands: `new`, `domains`, `list`, `read`, `delete`, `forget`. (`wait` is in wait.ts.) */
import { ApiError, isApiError } from '../client/api-error';
import { listingNote } from '../client/listing';
import { PROVIDER_INFO } from '../client/providers';
import { normalizeBaseUrl, type SavedSession } from '../state/saved-sessions';
import type { CreateSessionOptions, Domain, DomainList, Session } from '../model/mail-types';
import { safeLine } from '../text/safe-text';
import { formatCountdown, secondsLeft } from '../platform/time';
import { flag, parseCommandArgs, show, str } from './args';
import { makeContext, onSaved, pickSession, refOf, whereLabel, type Context } from './context';
import { analyse, domainsJson, domainsText, json, messageJson, messageText, sessionJson, summaryJson, summaryLine, wireId } from './script-format';
import { EXIT, ScriptError, UsageError, type ScriptIo } from './io';

/** `new [--prefix P] [--domain D] [--extmail [--account EMAIL]] [--json] [--show-token]`: creates and saves an address. */
export async function runNew(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('new', args);
  const domain = str(parsed, 'domain');
  const account = str(parsed, 'account');
  // --account names an external account, so it implies --extmail.
  const extmail = flag(parsed, 'extmail') || account !== undefined;
  if (extmail && domain !== undefined) throw new UsageError('new: --domain and --extmail exclude each other');
  const ctx = makeContext(io, parsed);
  const ref = ctx.configured();
  if (extmail && ref.provider !== 'tempmail') {
    throw new UsageError(`new: ${PROVIDER_INFO[ref.provider].label} has no external-mail accounts; --extmail is for services of the interface (--provider tempmail)`);
  }
  const provider = ctx.provider(ref);
  const options: CreateSessionOptions = {};
  const prefix = str(parsed, 'prefix');
  if (prefix !== undefined) options.prefix = prefix;
  if (domain !== undefined || account !== undefined) {
    const list = await provider.listDomains();
    // A provider that picks the domain itself lists none: a domain asked for is passed on for it to judge.
    if (domain !== undefined && list.anyDomain && list.domains.length === 0) options.domain = domain.trim().toLowerCase();
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
      throw new ApiError('prefix_taken', `${safeLine(prefix, 64)}${domain !== undefined ? `@${safeLine(domain, 253)}` : ''} is taken; try another name`, error.details);
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
    throw new ScriptError(`${session.email} was created but not saved (${why}); list, wait, read and the app will not find it`);
  }
  print(saved);
  const lasts = saved.expiresAt === null ? 'no expiry (`tempmail-tui forget --delete-account` deletes it)' : `expires in ${formatCountdown(secondsLeft(saved.expiresAt, ctx.now()))}`;
  const on = ref.provider === 'tempmail' ? '' : ` on ${PROVIDER_INFO[ref.provider].label}`;
  ctx.info(`Saved ${saved.email}${on}; ${lasts}. Wait for mail: tempmail-tui wait --print code`);
  return EXIT.ok;
}

/**
 * The address was made and saved, but its sign-in failed (a 429 past the wait, the network): it is
 * printed, and the next command that needs it signs in. Only `--show-token` fails: there is no token yet.
 */
function signInLater(ctx: Context, kept: SavedSession, error: unknown, print: (s: SavedSession) => void, showToken: boolean): number {
  print(kept);
  const why = isApiError(error) ? safeLine(error.message, 200) : 'the sign-in failed';
  const label = PROVIDER_INFO[kept.provider].label;
  const said = `${kept.email} was created and saved, but ${label} did not sign it in yet (${why}); the next command that needs it signs in`;
  if (showToken) throw new ScriptError(`${said}; no token to show yet`);
  ctx.info(said);
  return EXIT.ok;
}

/** `domains [--json]`: the provider's domains and external-mail accounts. */
export async function runDomains(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('domains', args);
  const ctx = makeContext(io, parsed);
  const provider = ctx.provider();
  const list = await provider.listDomains();
  io.stdout.write(flag(parsed, 'json') ? json(domainsJson(list)) : domainsText(list));
  if (list.anyDomain && list.domains.length === 0) ctx.info(`${provider.info.label} lists no domains: it picks one for each new address`);
  return EXIT.ok;
}

/** `list [--address A] [--json]`: the messages of the current (or given) saved address, newest first. */
export async function runList(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('list', args);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const messages = await onSaved(ctx, session, () => ctx.provider(refOf(session)).listMessages(session));
  // What the listing left out (its bounds, unreadable entries): on stderr, and in the JSON as `cut`.
  const note = listingNote(messages.length, messages.cut);
  if (flag(parsed, 'json')) {
    io.stdout.write(json({ address: session.email, messages: messages.map(summaryJson), ...(messages.cut ? { cut: messages.cut } : {}) }));
  } else {
    io.stdout.write(messages.map(summaryLine).join(''));
    if (messages.length === 0 && !note) ctx.info(`No messages yet for ${session.email}`);
  }
  if (note) ctx.info(note);
  return EXIT.ok;
}

/** A message id as typed: a number (tempmail, Guerrilla Mail) or mail.tm's hex, checked once the address is known. */
function messageIdArg(command: string, raw: string | undefined): string {
  if (raw === undefined) throw new UsageError(`${command}: which message? usage: tempmail-tui ${command} ID (ids from \`tempmail-tui list\`)`);
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(raw)) throw new UsageError(`${command}: ID must be a message id from \`tempmail-tui list\`, got ${show(raw)}`);
  return raw;
}

/** The id, if it has the shape of the address's provider's ids. */
function checkIdFor(command: string, id: string, session: SavedSession): string {
  if (PROVIDER_INFO[session.provider].limits.numericIds && !/^\d{1,15}$/.test(id)) {
    throw new UsageError(`${command}: ID must be a message number, got ${show(id)}`);
  }
  return id;
}

/** `read ID [--address A] [--json]`: one message, rendered as text, with the detected code and link. */
export async function runRead(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('read', args, 1);
  const id = messageIdArg('read', parsed.positionals[0]);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  checkIdFor('read', id, session);
  const message = await onSaved(ctx, session, () => ctx.provider(refOf(session)).readMessage(session, id));
  const result = analyse(message, io.columns ?? 80);
  io.stdout.write(flag(parsed, 'json') ? json(messageJson(result)) : messageText(result));
  return EXIT.ok;
}

/** `delete ID [--address A] [--json]`: deletes one message. */
export async function runDelete(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('delete', args, 1);
  const id = messageIdArg('delete', parsed.positionals[0]);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  checkIdFor('delete', id, session);
  await onSaved(ctx, session, () => ctx.provider(refOf(session)).deleteMessage(session, id));
  if (flag(parsed, 'json')) io.stdout.write(json({ address: session.email, deleted: wireId(id) }));
  ctx.info(`Deleted message ${id} of ${session.email}`);
  return EXIT.ok;
}

/** `forget [--address A] [--delete-account] [--json]`: forgets a saved address, and deletes it at the provider when asked. */
export async function runForget(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('forget', args);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const provider = ctx.provider(refOf(session));
  const remove = flag(parsed, 'delete-account');
  if (remove) {
    if (!provider.deleteAddress) throw new UsageError(`forget: ${whereLabel(refOf(session))} cannot delete an address; without --delete-account it is forgotten here only`);
    await onSaved(ctx, session, () => provider.deleteAddress!(session));
  }
  ctx.sessions.forget(session.email, session.baseUrl, session.provider);
  if (flag(parsed, 'json')) io.stdout.write(json({ address: session.email, forgotten: true, deletedAtProvider: remove }));
  ctx.info(remove ? `Deleted ${session.email} at ${provider.info.label} and forgot it here` : `Forgot ${session.email} (it still exists at ${whereLabel(refOf(session))})`);
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
