/**
 * The rows between a message's headers and its body: the detected code, the link (the picked one in
 * full, wrapped, so it can be read and typed elsewhere; the detected one on a line), and the attachments
 * with name, type and size, numbered for `a`. Plain data; the viewer draws it like the headers.
 */
import type { Link } from '../../content/html-text';
import { truncateToWidth } from '../../text/text-width';
import { wrapText } from '../../text/text-wrap';
import type { AttachmentInfo } from '../../model/mail-types';
import { byteSize } from '../wording/display-format';
import type { Mark } from './mark';

/** Columns taken by the labels ("Subject:  "), as in the headers. */
export const LABEL_COLS = 10;
// A picked link is shown whole up to this many lines (a tracking URL can run for kilobytes).
const MAX_LINK_LINES = 6;
// Attachments listed one per line up to this many; the rest are counted.
const MAX_ATTACHMENT_LINES = 4;

export interface ExtrasInput {
  mark?: Mark;
  /** The link picked by number, if any. */
  picked?: Link | null;
  attachments: readonly AttachmentInfo[];
  /** Width of the viewer. */
  columns: number;
}

/** A label, a value and, on a link's rows, the link's URL. */
export type ExtraRow = [label: string, value: string, url?: string];

/** Label/value rows; a label of '' continues the row above. */
export function extraLines({ mark, picked, attachments, columns }: ExtrasInput): ExtraRow[] {
  const rows: ExtraRow[] = [];
  const width = Math.max(10, columns - LABEL_COLS);
  // y copies the picked link once there is one; the code is then c's.
  if (mark?.code) rows.push(['Code', `${mark.code}   ${picked ? 'c' : 'y'} copies`]);
  if (picked) {
    const wrapped = wrapText(`[${picked.n}] ${picked.url}`, width, { breakAtSpaces: false }).split('\n');
    const shown = wrapped.slice(0, MAX_LINK_LINES);
    if (wrapped.length > MAX_LINK_LINES)
      shown[MAX_LINK_LINES - 1] = `${truncateToWidth(shown[MAX_LINK_LINES - 1]!, width - 1, '')}…`;
    for (const [i, line] of shown.entries()) rows.push([i === 0 ? 'Link' : '', line, picked.url]);
  } else if (mark?.link) {
    rows.push(['Link', `[${mark.link.n}] ${mark.link.url}`, mark.link.url]);
  }
  const many = attachments.length > 1;
  attachments.slice(0, MAX_ATTACHMENT_LINES).forEach((a, i) => {
    const name = a.filename.trim() || 'unnamed';
    const type = a.contentType.trim() || 'unknown type';
    rows.push([i === 0 ? 'Attached' : '', `${many ? `[${i + 1}] ` : ''}${name} · ${type} · ${byteSize(a.size)}`]);
  });
  if (attachments.length > MAX_ATTACHMENT_LINES) {
    rows.push(['', `… and ${attachments.length - MAX_ATTACHMENT_LINES} more (a then a number saves one)`]);
  }
  return rows;
}
