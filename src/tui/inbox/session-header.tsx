/**
 * The top of the session screens: the address with a live expiry countdown, the poll state, and in
 * local mode where to send mail. It ticks once a second on its own, so the list does not re-render.
 */
import { Box, Text } from 'ink';
import React from 'react';
import type { PollStatus } from '../../core/poller';
import { fitToWidth, textWidth } from '../../core/text-width';
import { formatCountdown, secondsLeft } from '../../core/time';
import type { Session } from '../../core/types';
import { useTheme } from '../common/theme';
import { useNow } from '../common/use-now';
import type { LocalServiceInfo } from '../types';
import { pollText } from './poll-text';

export interface SessionHeaderProps {
  session: Session;
  poll: PollStatus;
  intervalMs: number;
  clock: () => number;
  columns: number;
  local?: LocalServiceInfo;
}

// No temporary address lives longer than a day; a longer countdown means the service's zone is misread.
const MAX_COUNTDOWN_SECONDS = 24 * 3600;

/**
 * The countdown words. The service is the authority on expiry: when our count reaches 0 while it still
 * answers, its `expires_at` was in another zone than configured, and the header says so instead of
 * claiming the address is dead.
 */
export function expiryText(left: number, poll: PollStatus): string {
  if (poll.phase === 'stopped' && poll.stopReason !== 'left') return 'expired';
  if (left > 0) return `expires in ${formatCountdown(left)}`;
  if (poll.lastSuccessAt === null) return 'expired';
  return 'expiry unclear (service zone? see --server-tz)';
}

/** The local-mode lines: the exact SMTP target for this address, on two lines when one is too narrow. */
export function localLines(local: LocalServiceInfo, address: string, columns: number): string[] {
  const target = `via SMTP ${local.smtpHost}:${local.smtpPort}`;
  const line = `Local service: send mail to ${address} ${target}`;
  return textWidth(line) <= columns ? [line] : [`Local service: send mail to ${address}`, `  ${target}`];
}

/** Lines the header takes, so screens can size their body. */
export function headerHeight(address: string, columns: number, local?: LocalServiceInfo): number {
  return 2 + (local ? localLines(local, address, columns).length : 0);
}

/** Address, countdown, poll state and (local mode) the SMTP target. */
export function SessionHeader({ session, poll, intervalMs, clock, columns, local }: SessionHeaderProps) {
  const theme = useTheme();
  const now = useNow(clock);
  const left = secondsLeft(session.expiresAt, new Date(now), MAX_COUNTDOWN_SECONDS);
  const countdown = expiryText(left, poll);
  const right = ` ${countdown}`;
  const address = fitToWidth(session.email, Math.max(1, columns - textWidth(right)));
  const failing = poll.phase === 'retrying' || poll.phase === 'stopped';
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold color={theme.color('accent')}>
          {address}
        </Text>
        <Text color={left > 0 ? undefined : theme.color('error')}>{right}</Text>
      </Text>
      <Text wrap="truncate" color={failing ? theme.color('warn') : theme.color('muted')}>
        {fitToWidth(pollText(poll, now, intervalMs), columns)}
      </Text>
      {local
        ? localLines(local, session.email, columns).map((line) => (
            <Text key={line} wrap="truncate" color={theme.color('ok')}>
              {fitToWidth(line, columns)}
            </Text>
          ))
        : null}
    </Box>
  );
}
