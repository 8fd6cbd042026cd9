/**
 * What the viewer's keys do, apart from scrolling: pick a link by its number, copy (`y`, `c`), open (`o`),
 * save (`a`) and switch the part (`t`). Plain functions of what the viewer shows, so the component only
 * maps keys to them; the words they answer with are in wording/viewer-words.ts.
 */
import type { Link } from '../../content/html-convert';
import type { AttachmentInfo, Message } from '../../model/mail-types';
import {
  linkPicked,
  linkWaiting,
  NO_ATTACHMENTS,
  NO_LINKS,
  noCode,
  noSuchLink,
  NOT_LOADED,
  nothingToYank,
  onlyPart,
  SOURCE_SHOWN,
  showingPart,
  whichLink,
} from '../wording/viewer-words';
import type { Mark } from './mark';
import { partsOf } from './use-viewer-lines';
import { linkChoice, type ViewerAction, type ViewerMode, type ViewerState } from './viewer-state';

/** What the viewer's commands act through: the session's callbacks. */
export interface ViewerActions {
  onMode: (mode: ViewerMode) => void;
  onCopy: (what: string, text: string) => void;
  onOpenLink: (n: number, url: string) => void;
  onSave: (attachments: readonly AttachmentInfo[]) => void;
  onStatus: (text: string, sticky?: boolean) => void;
}

/** What the viewer shows when a key comes. */
export interface ViewerCommandContext {
  /** The message once loaded. */
  message: Message | undefined;
  mark: Mark | undefined;
  links: readonly Link[];
  /** The link picked by number, if any. */
  picked: Link | null;
  state: ViewerState;
  mode: ViewerMode;
  /** What the rule says is shown ("HTML part", ...). */
  label: string;
  dispatch: (action: ViewerAction) => void;
  act: ViewerActions;
}

/** Picks link `n`: it is shown whole at the top, and `o` and `y` act on it. */
export function pickLink(ctx: ViewerCommandContext, n: number): void {
  ctx.dispatch({ type: 'pick', n });
  ctx.act.onStatus(linkPicked(n));
}

/** A digit typed: a link number picked, or waited on for another digit. */
export function pickDigit(ctx: ViewerCommandContext, digit: string): void {
  const { links, state, act } = ctx;
  if (links.length === 0) return act.onStatus(NO_LINKS);
  const choice = linkChoice(state.linkDigits, digit, links.length);
  ctx.dispatch({ type: 'linkDigits', digits: choice.wait ?? '' });
  if (choice.wait) return act.onStatus(linkWaiting(choice.wait), true);
  const link = choice.pick !== undefined ? links[choice.pick - 1] : undefined;
  if (link) pickLink(ctx, link.n);
  else act.onStatus(noSuchLink(`${state.linkDigits}${digit}`, links.length));
}

/** Enter: the link number typed so far, picked. */
export function submitLinkDigits(ctx: ViewerCommandContext): void {
  const link = ctx.state.linkDigits ? ctx.links[Number(ctx.state.linkDigits) - 1] : undefined;
  ctx.dispatch({ type: 'linkDigits', digits: '' });
  if (link) pickLink(ctx, link.n);
}

/** `y`: the picked link, else the code, else the detected link. */
export function yank(ctx: ViewerCommandContext): void {
  const { picked, mark, act } = ctx;
  if (picked) return act.onCopy(`link ${picked.n}`, picked.url);
  if (mark?.code) return act.onCopy(`code ${mark.code}`, mark.code);
  if (mark?.link) return act.onCopy(`link ${mark.link.n}`, mark.link.url);
  if (!ctx.message) return act.onStatus(NOT_LOADED);
  act.onStatus(nothingToYank(ctx.links.length));
}

/** `c`: the code alone (as `c` copies in the inbox), or why there is none and what y would copy. */
export function copyCode(ctx: ViewerCommandContext): void {
  const { mark, act } = ctx;
  if (mark?.code) return act.onCopy(`code ${mark.code}`, mark.code);
  if (!ctx.message) return act.onStatus(NOT_LOADED);
  act.onStatus(noCode(ctx.links.length, (ctx.picked ?? mark?.link)?.n));
}

/** `o`: the picked link, else the detected one; picking it shows it whole at the top. */
export function openLink(ctx: ViewerCommandContext): void {
  const { picked, mark, links } = ctx;
  const target = picked ?? (mark?.link ? links[mark.link.n - 1] : undefined);
  if (!target) return ctx.act.onStatus(whichLink(links.length));
  if (ctx.state.picked !== target.n) ctx.dispatch({ type: 'pick', n: target.n });
  ctx.act.onOpenLink(target.n, target.url);
}

/** `a`: save an attachment (the session asks which when there are several). */
export function saveAttachment(ctx: ViewerCommandContext): void {
  const { message, act } = ctx;
  if (!message) return act.onStatus(NOT_LOADED);
  if (message.attachments.length === 0) return act.onStatus(NO_ATTACHMENTS);
  act.onSave(message.attachments);
}

/** `t`: the other part, when there is one; the choice stays for the following messages. */
export function switchPart(ctx: ViewerCommandContext): void {
  const { message, mode, act } = ctx;
  if (!message) return act.onStatus(NOT_LOADED);
  if (mode.source) return act.onStatus(SOURCE_SHOWN);
  const parts = partsOf(message);
  if (!parts.html || !parts.text) return act.onStatus(onlyPart(parts.html));
  const part = ctx.label.startsWith('HTML') ? 'text' : 'html';
  act.onMode({ ...mode, part });
  act.onStatus(showingPart(part));
}
