/**
 * The top of the session screens: the address with a live expiry countdown, the poll state with the
 * provider the address lives on, and in local mode where to send mail. Its countdown ticks once a second
 * on its own (nothing else re-renders), and it follows the poller's status on its own
 * (LiveSessionHeader), so the list does not re-render.
 */
import { Box, Text } from 'ink';
import { memo } from 'react';
import type { PollStatus } from '../../client/pacing/poller';
import type { PushState } from '../../client/client-types';
import { fitToWidth, textWidth, truncateToWidth } from '../../text/text-width';
import { wrapText } from '../../text/text-wrap';
import { formatTimeLeft, SECONDS_SHOWN_UNDER, secondsLeft } from '../../platform/time';
import type { Session } from '../../model/mail-types';
import { useTheme } from '../widgets/theme';
import { useNow } from '../widgets/use-now';
import { useStoreValue, type ValueStore } from '../widgets/value-store';
import type { LocalServiceInfo } from '../shell/shell-types';
import { pollText } from './poll-text';

export interface SessionHeaderProps {
  session: Session;
  /** How far the service's times read off (use-inbox learns it from arriving mail). */
  zoneErrorMs?: number;
  poll: PollStatus;
  intervalMs: number;
  clock: () => number;
  columns: number;
  local?: LocalServiceInfo;
  /** The provider's name ("mail.tm"), right-aligned on the poll line when there is room. */
  where?: string;
  /** The provider's new-mail push, where it has one ("instant" is said while it works). */
  push?: PushState | null;
  /** Unread messages, at the right of the poll line (the viewer's; the inbox's list says it itself). */
  unread?: number;
}

// No temporary address lives longer than a day; a longer countdown means the service's zone is misread.
const MAX_COUNTDOWN_SECONDS = 24 * 3600;

/**
 * The countdown words. The service is the authority on expiry: when our count reaches 0 while it still
 * answers, its `expires_at` was in another zone than configured, and the header says so instead of
 * claiming the address is dead.
 */
export function expiryText(left: number, poll: PollStatus, expires = true): string {
  if (poll.phase === 'stopped' && poll.stopReason !== 'left') return expires ? 'expired' : 'refused';
  if (!expires) return 'no expiry';
  if (left > 0) return `expires in ${formatTimeLeft(left)}`;
  if (poll.lastSuccessAt === null) return 'expired';
  return 'expiry unclear (service zone? see --server-tz)';
}

// Room kept beside the address for the countdown (at its widest, "expires in 23 h 59 min"); with less, the address
// takes lines of its own and the countdown the next one, so the address is always shown whole.
const COUNTDOWN_ROOM = 1 + textWidth('expires in 23 h 59 min');

/** The address lines: the address whole (cut into pieces of the width only when wider than it). */
export function addressLines(address: string, columns: number): { lines: string[]; besideCountdown: boolean } {
  if (textWidth(address) + COUNTDOWN_ROOM <= columns) return { lines: [address], besideCountdown: true };
  return { lines: wrapText(address, columns, { breakAtSpaces: false }).split('\n'), besideCountdown: false };
}

/**
 * The local-mode line: where to send mail, on one row whatever the width (on 80 columns two rows of
 * banner took a row from the list). The first wording that fits: the whole sentence, a shorter one,
 * then "the address above" (the header's first line shows it whole), then the SMTP target alone.
 */
export function localLine(local: LocalServiceInfo, address: string, columns: number): string {
  const smtp = `SMTP ${local.smtpHost}:${local.smtpPort}`;
  const wordings = [
    `Local service: send mail to ${address} via ${smtp}`,
    `Local service: mail to ${address} via ${smtp}`,
    `Local service: send mail to the address above via ${smtp}`,
    `Local service: ${smtp}`,
    smtp,
  ];
  return wordings.find((line) => textWidth(line) <= columns) ?? truncateToWidth(wordings.at(-1)!, columns);
}

/** Lines the header takes, so screens can size their body. */
export function headerHeight(address: string, columns: number, local?: LocalServiceInfo): number {
  const { lines, besideCountdown } = addressLines(address, columns);
  return lines.length + (besideCountdown ? 0 : 1) + 1 + (local ? 1 : 0);
}

/** `s` cut to `cols` columns and padded on the left to exactly `cols`. */
function rightAligned(s: string, cols: number): string {
  const cut = truncateToWidth(s, cols);
  return ' '.repeat(Math.max(0, cols - textWidth(cut))) + cut;
}

/** The poll words, and the provider right-aligned after them when both fit with a gap. */
export function pollLine(poll: string, where: string | undefined, columns: number): string {
  if (!where) return fitToWidth(poll, columns);
  const gap = columns - textWidth(poll) - textWidth(where);
  return gap >= 3 ? `${poll}${' '.repeat(gap)}${where}` : fitToWidth(poll, columns);
}

/**
 * The countdown, right-aligned in `cols` columns (or on a line of its own): the only part of the header
 * that changes by itself, so it alone ticks: once a minute on the expiry's minutes while it says whole
 * minutes, every second below SECONDS_SHOWN_UNDER. It is a Text of its own, so a tick re-renders this
 * component only and Ink lays out and cuts into cells its few characters, not the address beside it.
 */
function Countdown({
  session,
  zoneErrorMs,
  poll,
  clock,
  cols,
}: {
  session: Session;
  zoneErrorMs: number;
  poll: PollStatus;
  clock: () => number;
  /** Columns it is right-aligned in; undefined: on its own line, cut at the edge. */
  cols?: number;
}) {
  const theme = useTheme();
  const expires = session.expiresAt !== null;
  const expiresAt = expires ? session.expiresAt!.getTime() - zoneErrorMs : 0;
  const leftAt = (at: number) => secondsLeft(new Date(expiresAt), new Date(at), MAX_COUNTDOWN_SECONDS);
  // Whole minutes now: the next change is on a minute of the expiry (the clock is read here only for that).
  const byMinute = expires && leftAt(clock()) >= SECONDS_SHOWN_UNDER;
  const now = useNow(clock, byMinute ? 60_000 : 1000, expiresAt);
  const left = expires ? leftAt(now) : 1;
  const countdown = expiryText(left, poll, expires);
  const refused = !expires && poll.phase === 'stopped' && poll.stopReason !== 'left';
  const color = left > 0 && !refused ? undefined : theme.color('error');
  return (
    <Text wrap="truncate" color={color}>
      {/* Right-aligned; it gives way ("expiry unclear (servi…") before the address does. */}
      {cols === undefined ? countdown : rightAligned(` ${countdown}`, cols)}
    </Text>
  );
}

/** The poll line; only a retry's countdown ("retrying in 8 s") reads the clock, so only then it ticks. */
function PollLine(props: {
  poll: PollStatus;
  intervalMs: number;
  clock: () => number;
  right: string;
  columns: number;
}) {
  return props.poll.phase === 'retrying' ? (
    <TickingPollLine {...props} />
  ) : (
    <PollLineAt {...props} now={props.clock()} />
  );
}

function TickingPollLine(props: {
  poll: PollStatus;
  intervalMs: number;
  clock: () => number;
  right: string;
  columns: number;
}) {
  return <PollLineAt {...props} now={useNow(props.clock)} />;
}

function PollLineAt({
  poll,
  intervalMs,
  right,
  columns,
  now,
}: {
  poll: PollStatus;
  intervalMs: number;
  right: string;
  columns: number;
  now: number;
}) {
  const theme = useTheme();
  const failing = poll.phase === 'retrying' || poll.phase === 'held' || poll.phase === 'stopped';
  return (
    <Text wrap="truncate" color={failing ? theme.color('warn') : theme.color('muted')}>
      {pollLine(pollText(poll, now, intervalMs), right || undefined, columns)}
    </Text>
  );
}

/** Address, countdown, poll state, its provider, the unread count (viewer) and (local mode) the SMTP target. */
export function SessionHeader({
  session,
  zoneErrorMs = 0,
  poll,
  intervalMs,
  clock,
  columns,
  local,
  where,
  push,
  unread,
}: SessionHeaderProps) {
  const theme = useTheme();
  const { lines, besideCountdown } = addressLines(session.email, columns);
  const provider = where && push === 'live' ? `${where} · instant` : where;
  const right = [provider, unread === undefined ? '' : `${unread} unread`].filter(Boolean).join(' · ');
  const countdown = { session, zoneErrorMs, poll, clock };
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the address wrapped to the width, replaced as a whole; a line has no identity but its row
        <Box key={i}>
          <Text wrap="truncate" bold color={theme.color('accent')}>
            {line}
          </Text>
          {besideCountdown ? <Countdown {...countdown} cols={columns - textWidth(line)} /> : null}
        </Box>
      ))}
      {besideCountdown ? null : <Countdown {...countdown} />}
      <PollLine poll={poll} intervalMs={intervalMs} clock={clock} right={right} columns={columns} />
      {local ? (
        <Text wrap="truncate" color={theme.color('ok')}>
          {fitToWidth(localLine(local, session.email, columns), columns)}
        </Text>
      ) : null}
    </Box>
  );
}

/** SessionHeader on the poller's status store: a check redraws the header alone, and only when it changes. */
export const LiveSessionHeader = memo(function LiveSessionHeader({
  poll,
  ...props
}: Omit<SessionHeaderProps, 'poll'> & { poll: ValueStore<PollStatus> }) {
  return <SessionHeader {...props} poll={useStoreValue(poll)} />;
});
