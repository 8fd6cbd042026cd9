/** Small display helpers shared by the screens: senders, subjects, times, sizes. */
import type { SavedSession } from '../../state/saved-sessions';
import type { MessageSummary } from '../../model/mail-types';
import { formatCountdown, secondsLeft } from '../../platform/time';

/** The sender as a list shows it: the name, else the address. */
export function senderLabel(m: Pick<MessageSummary, 'senderName' | 'senderEmail'>): string {
  return m.senderName.trim() || m.senderEmail.trim() || '(unknown sender)';
}

/** The sender as the viewer shows it: `Name <address>`. */
export function senderFull(m: Pick<MessageSummary, 'senderName' | 'senderEmail'>): string {
  const name = m.senderName.trim();
  const email = m.senderEmail.trim();
  if (name && email && name !== email) return `${name} <${email}>`;
  return name || email || '(unknown sender)';
}

/** The subject, or a visible placeholder. */
export const subjectLabel = (subject: string): string => subject.trim() || '(no subject)';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** A list time in 6 columns or fewer, local zone: "14:03" today, "Nov 21" this year, "2025" before. */
export function shortTime(date: Date | null, now: number): string {
  if (!date) return '';
  const today = new Date(now);
  if (date.toDateString() === today.toDateString()) return `${pad(date.getHours())}:${pad(date.getMinutes())}`;
  if (date.getFullYear() === today.getFullYear()) return `${MONTHS[date.getMonth()]} ${pad(date.getDate())}`;
  return String(date.getFullYear());
}

/** A full local time with its offset: "2026-11-22 14:03:05 +01:00". */
export function longTime(date: Date | null): string {
  if (!date) return '(unknown)';
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const zone = `${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())} ${zone}`
  );
}

/** "12 KB", "3.4 MB". */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A wall-clock time "14:03:05" for "last checked". */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** " · unknown to the service at 14:02:11" for a saved address the service refused, else nothing. */
export function refusedNote(session: Pick<SavedSession, 'refusedAt'>): string {
  return session.refusedAt ? ` · unknown to the service at ${clockTime(session.refusedAt.getTime())}` : '';
}

/** "expires in 59:07", or "no expiry" for an address that does not expire (a mail.tm account). */
export function lifeText(s: Pick<SavedSession, 'expiresAt'>, now: number): string {
  return s.expiresAt === null ? 'no expiry' : `expires in ${formatCountdown(secondsLeft(s.expiresAt, new Date(now)))}`;
}
