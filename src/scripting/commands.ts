/** The one-shot scripting commands: `new`, `domains`, `list`, `read`. (`wait` is in wait.ts.) */
import { ApiError, isApiError } from '../client/api-error';
import { normalizeBaseUrl, type SavedSession } from '../state/saved-sessions';
import type { CreateSessionOptions, DomainList } from '../model/mail-types';
import { safeLine } from '../text/safe-text';
import { formatCountdown, secondsLeft } from '../platform/time';
import { flag, parseCommandArgs, show, str } from './args';
import { makeContext, onSaved, pickSession } from './context';
import { analyse, domainsJson, domainsText, json, messageJson, messageText, sessionJson, summaryJson, summaryLine } from './script-format';
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
  const baseUrl = ctx.settings.baseUrl;
  const api = ctx.api(baseUrl);
  const options: CreateSessionOptions = {};
  const prefix = str(parsed, 'prefix');
  if (prefix !== undefined) options.prefix = prefix;
  if (domain !== undefined || account !== undefined) {
    const list = await api.listDomains();
    if (domain !== undefined) options.domainId = findDomain(list, domain);
    if (account !== undefined) options.extmailId = findAccount(list, account);
  }
  if (extmail) {
    options.useExtmail = true;
    if (account === undefined) options.extmailAuto = true;
  }
  const session = await api.createSession(options).catch((error: unknown) => {
    // "That name is taken" names no name: say which one (the service picked the domain if none was given).
    if (isApiError(error) && error.kind === 'prefix_taken' && prefix !== undefined) {
      throw new ApiError('prefix_taken', `${safeLine(prefix, 64)}${domain !== undefined ? `@${safeLine(domain, 253)}` : ''} is taken; try another name`, error.details);
    }
    throw error;
  });
  const showToken = flag(parsed, 'show-token');
  const print = (s: SavedSession) => {
    if (flag(parsed, 'json')) io.stdout.write(json(sessionJson(s, showToken)));
    else io.stdout.write(`${s.email}\n${showToken ? `${s.token}\n` : ''}`);
  };
  let saved: SavedSession;
  try {
    saved = ctx.sessions.save(session, baseUrl!);
  } catch (error) {
    // The address exists on the service whether or not it was saved: print it first, so a script (or
    // a person) still has it, then say it was not saved (later commands and the app will not know it).
    print({ ...session, baseUrl: normalizeBaseUrl(baseUrl!), createdAt: ctx.now() });
    const why = error instanceof Error ? error.message : String(error);
    throw new ScriptError(`${session.email} was created but not saved (${why}); list, wait, read and the app will not find it`);
  }
  print(saved);
  const left = secondsLeft(saved.expiresAt, ctx.now());
  ctx.info(`Saved ${saved.email}; expires in ${formatCountdown(left)}. Wait for mail: tempmail-tui wait --print code`);
  return EXIT.ok;
}

/** `domains [--json]`: the service's domains and external-mail accounts. */
export async function runDomains(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('domains', args);
  const ctx = makeContext(io, parsed);
  const list = await ctx.api().listDomains();
  io.stdout.write(flag(parsed, 'json') ? json(domainsJson(list)) : domainsText(list));
  return EXIT.ok;
}

/** `list [--address A] [--json]`: the messages of the current (or given) saved address, newest first. */
export async function runList(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('list', args);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const messages = await onSaved(ctx, session, () => ctx.api(session.baseUrl).checkMail(session.token));
  if (flag(parsed, 'json')) {
    io.stdout.write(json({ address: session.email, messages: messages.map(summaryJson) }));
  } else {
    io.stdout.write(messages.map(summaryLine).join(''));
    if (messages.length === 0) ctx.info(`No messages yet for ${session.email}`);
  }
  return EXIT.ok;
}

/** `read ID [--address A] [--json]`: one message, rendered as text, with the detected code and link. */
export async function runRead(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('read', args, 1);
  const raw = parsed.positionals[0];
  if (raw === undefined) throw new UsageError('read: which message? usage: tempmail-tui read ID (ids from `tempmail-tui list`)');
  if (!/^\d{1,15}$/.test(raw)) throw new UsageError(`read: ID must be a message number, got ${show(raw)}`);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const message = await onSaved(ctx, session, () => ctx.api(session.baseUrl).readMail(session.token, Number(raw)));
  const result = analyse(message, io.columns ?? 80);
  io.stdout.write(flag(parsed, 'json') ? json(messageJson(result)) : messageText(result));
  return EXIT.ok;
}

// A domain by name (case-insensitive) or by id, as listed by `domains`.
function findDomain(list: DomainList, wanted: string): number {
  const w = wanted.trim().toLowerCase();
  const found = list.domains.find((d) => d.domain.toLowerCase() === w || String(d.id) === w);
  if (!found) {
    const names = list.domains.map((d) => d.domain).join(', ') || 'none';
    throw new ScriptError(`new: no domain ${show(wanted)} on this service (available: ${names})`);
  }
  return found.id;
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
