/**
 * A message's "mark": its likely verification code and confirmation link (src/content/codes.ts), read once
 * when its body arrives (reader.ts, `markOf`), for the inbox badge and the top of the viewer. Only the
 * top of a big message is converted for this (codes and confirmation links come first), so it costs a
 * few ms whatever the size.
 */

export interface Mark {
  code: string | null;
  /** The likely link, with its number in the viewer's link list. */
  link: { n: number; url: string } | null;
}

/** The inbox badge: "code 482913", "link", or '' when the message has no mark (or is not fetched). */
export function badgeOf(mark: Mark | undefined): string {
  if (!mark) return '';
  if (mark.code) return `code ${mark.code}`;
  return mark.link ? 'link' : '';
}
