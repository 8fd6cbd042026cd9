/**
 * What the picker says under its list while the domains are not there: loading, or why they could not
 * be loaded (wrapped: the reason ends with what to check) and what happens next (asked again in N s, or,
 * for an address that is not the service, only on r).
 */
import { Box, Text } from 'ink';
import { fitToWidth } from '../../text/text-width';
import { statusLines } from '../widgets/chrome';
import { useTheme } from '../widgets/theme';
import type { DomainsState } from './use-picker';

export interface DomainsNoteLines {
  loading: boolean;
  reason: string[];
  hint: string[];
  /** Rows the note takes. */
  rows: number;
}

/** The note's lines at `columns`, or null once the domains are there. `next`: the provider p tries. */
export function domainsNote(
  domains: DomainsState,
  at: { canGoBack: boolean; next?: string },
  now: number,
  columns: number,
): DomainsNoteLines | null {
  if (domains.status === 'ready') return null;
  if (domains.status === 'loading')
    return { loading: true, reason: ['Loading the domains from the service…'], hint: [], rows: 1 };
  // A provider that is down, blocked or not this service: another may not be.
  const again = domains.held ? 'try again' : 'retry now';
  const keys = at.canGoBack
    ? `r: ${again}, ${at.next ? `p: try ${at.next}, ` : ''}Esc: back to your address, q: quit.`
    : `Press r to ${again}, ${at.next ? `p to try ${at.next}, ` : ''}q to quit.`;
  const when = domains.held
    ? ''
    : domains.retryAt === null
      ? 'Retrying now… '
      : `Retrying in ${Math.max(0, Math.ceil((domains.retryAt - now) / 1000))} s. `;
  const reason = statusLines(`Could not load the domains: ${domains.error}`, columns);
  const hint = statusLines(when + keys, columns);
  return { loading: false, reason, hint, rows: reason.length + hint.length };
}

export function DomainsNote({ note, columns }: { note: DomainsNoteLines; columns: number }) {
  const theme = useTheme();
  const color = note.loading ? theme.color('muted') : theme.color('error');
  return (
    <Box flexDirection="column">
      {note.reason.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the reason wrapped to the width, replaced as a whole; a line has no identity but its row
        <Text key={`r${i}`} wrap="truncate" color={color}>
          {fitToWidth(line, columns)}
        </Text>
      ))}
      {note.hint.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the hint wrapped to the width, replaced as a whole; a line has no identity but its row
        <Text key={`h${i}`} wrap="truncate">
          {fitToWidth(line, columns)}
        </Text>
      ))}
    </Box>
  );
}
