/** The viewer's status-line and screen wording: what its keys answer and what it shows while a message loads. */

export const NOT_LOADED = 'The message is not loaded yet.';
export const NO_LINKS = 'This message has no links.';
export const NO_ATTACHMENTS = 'This message has no attachments.';
export const LOADING_MESSAGE = 'Loading the message…';
export const SOURCE_SHOWN = 'The source is shown: R shows the message again, then t switches its part.';

/** A link number typed so far, waiting for more. */
export const linkWaiting = (digits: string): string => `Link ${digits}… (another digit, or Enter)`;
/** A link number the message does not have. */
export const noSuchLink = (typed: string, count: number): string => `No link ${typed}: this message has ${count}.`;
export const linkPicked = (n: number): string => `Link ${n} picked: o opens it, y copies it.`;

/** `y` with nothing to copy. */
export const nothingToYank = (linkCount: number): string =>
  linkCount
    ? 'No code found here: type a link number first, then y copies it.'
    : 'No code or link found in this message.';

/** `c` with no code: what y would copy instead, if anything. */
export function noCode(linkCount: number, linkToYank: number | undefined): string {
  if (linkToYank !== undefined) return `No code found in this message: y copies link ${linkToYank}.`;
  return linkCount
    ? 'No code found in this message: type a link number, then y copies it.'
    : 'No code found in this message (and no link).';
}

/** `o` with no link picked nor detected. */
export const whichLink = (linkCount: number): string =>
  linkCount ? `Which link? Type its number (1-${linkCount}), then o.` : NO_LINKS;

/** `t` on a message with one part only. */
export const onlyPart = (html: boolean): string => `This message has only ${html ? 'an HTML' : 'a text'} part.`;
export const showingPart = (part: 'html' | 'text'): string =>
  `Showing the ${part === 'html' ? 'HTML' : 'text'} part (t switches back; kept for the next messages)`;

/** The message, or its source, failed to load. */
export const couldNotLoad = (what: string): string => `Could not load ${what}. Press r to try again.`;
/** Lines still on their way: "Loading the source…", "Rendering the HTML part…". */
export const preparing = (loading: boolean, what: string): string => `${loading ? 'Loading' : 'Rendering'} ${what}…`;

/** What the rule says of the lines shown: " HTML part · lines 1-20 of 84 · 3 links ". */
export function positionLine(label: string, first: number, last: number, count: number, linkCount: number): string {
  const links = linkCount ? ` · ${linkCount} link${linkCount === 1 ? '' : 's'}` : '';
  return ` ${label ? `${label} · ` : ''}lines ${first}-${last} of ${count}${links} `;
}
