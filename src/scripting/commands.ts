/** The one-shot scripting commands: `domains`, `list`, `read`, `delete`, `forget`. (`new` is in new-command.ts, `wait` in wait.ts.) */
import { listingNote } from '../client/wire/listing';
import { PROVIDER_INFO } from '../client/providers';
import type { SavedSession } from '../state/saved-sessions';
import { flag, parseCommandArgs, show, str } from './args';
import { makeContext, onSaved, pickSession, refOf, whereLabel } from './context';
import {
  analyse,
  domainsJson,
  domainsText,
  json,
  messageJson,
  messageText,
  summaryJson,
  summaryLine,
  wireId,
} from './script-format';
import { EXIT, UsageError, type ScriptIo } from './io';

/** `domains [--json]`: the provider's domains and external-mail accounts. */
export async function runDomains(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('domains', args);
  const ctx = makeContext(io, parsed);
  const provider = await ctx.open();
  const list = await provider.listDomains();
  io.stdout.write(flag(parsed, 'json') ? json(domainsJson(list)) : domainsText(list));
  if (list.anyDomain && list.domains.length === 0)
    ctx.info(`${provider.info.label} lists no domains: it picks one for each new address`);
  return EXIT.ok;
}

/** `list [--address A] [--json]`: the messages of the current (or given) saved address, newest first. */
export async function runList(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('list', args);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const provider = await ctx.open(refOf(session));
  const messages = await onSaved(ctx, session, () => provider.listMessages(session));
  // What the listing left out (its bounds, unreadable entries): on stderr, and in the JSON as `cut`.
  const note = listingNote(messages.length, messages.cut);
  if (flag(parsed, 'json')) {
    io.stdout.write(
      json({
        address: session.email,
        messages: messages.map(summaryJson),
        ...(messages.cut ? { cut: messages.cut } : {}),
      }),
    );
  } else {
    io.stdout.write(messages.map(summaryLine).join(''));
    if (messages.length === 0 && !note) ctx.info(`No messages yet for ${session.email}`);
  }
  if (note) ctx.info(note);
  return EXIT.ok;
}

/** A message id as typed: a number (tempmail, Guerrilla Mail) or mail.tm's hex, checked once the address is known. */
function messageIdArg(command: string, raw: string | undefined): string {
  if (raw === undefined)
    throw new UsageError(
      `${command}: which message? usage: tempmail-tui ${command} ID (ids from \`tempmail-tui list\`)`,
    );
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(raw))
    throw new UsageError(`${command}: ID must be a message id from \`tempmail-tui list\`, got ${show(raw)}`);
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
  const provider = await ctx.open(refOf(session));
  const message = await onSaved(ctx, session, () => provider.readMessage(session, id));
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
  const provider = await ctx.open(refOf(session));
  await onSaved(ctx, session, () => provider.deleteMessage(session, id));
  if (flag(parsed, 'json')) io.stdout.write(json({ address: session.email, deleted: wireId(id) }));
  ctx.info(`Deleted message ${id} of ${session.email}`);
  return EXIT.ok;
}

/** `forget [--address A] [--delete-account] [--json]`: forgets a saved address, and deletes it at the provider when asked. */
export async function runForget(args: string[], io: ScriptIo): Promise<number> {
  const parsed = parseCommandArgs('forget', args);
  const ctx = makeContext(io, parsed);
  const session = pickSession(ctx, str(parsed, 'address'));
  const provider = await ctx.open(refOf(session));
  const remove = flag(parsed, 'delete-account');
  if (remove) {
    if (!provider.deleteAddress)
      throw new UsageError(
        `forget: ${whereLabel(refOf(session))} cannot delete an address; without --delete-account it is forgotten here only`,
      );
    await onSaved(ctx, session, () => provider.deleteAddress!(session));
  }
  ctx.sessions.forget(session.email, session.baseUrl, session.provider);
  if (flag(parsed, 'json'))
    io.stdout.write(json({ address: session.email, forgotten: true, deletedAtProvider: remove }));
  ctx.info(
    remove
      ? `Deleted ${session.email} at ${provider.info.label} and forgot it here`
      : `Forgot ${session.email} (it still exists at ${whereLabel(refOf(session))})`,
  );
  return EXIT.ok;
}
