/**
 * The address switcher (`s`): the live saved addresses of this service with their remaining time, the
 * current one marked. Enter or a digit switches, `x` forgets the highlighted one after asking, `?` lists
 * the keys, Esc or `q` goes back. Switching leaves nothing behind: every address keeps receiving until it expires.
 */
import { Box, Text } from 'ink';
import { useState } from 'react';
import type { SavedSession } from '../../state/saved-sessions';
import { fitToWidth, textWidth } from '../../text/text-width';
import { Footer, StatusLine, statusLines } from '../widgets/chrome';
import { HelpScreen } from '../widgets/help-screen';
import { useTheme } from '../widgets/theme';
import { useKeys } from '../widgets/use-keys';
import { useNow } from '../widgets/use-now';
import { lifeText, refusedNote } from '../wording/display-format';
import { providerName } from '../wording/provider-text';
import type { StatusMessage } from '../wording/status-text';
import { sameRef, type ProviderRef } from '../../client/providers';
import { forgetLines, ForgetLine, forgetScreen, useForgetAnswer } from './forget-question';
import { stillLive } from './use-saved';

/** The address on screen, and where it lives. */
export interface CurrentAddress {
  email: string;
  ref: ProviderRef;
}

/** True when the saved entry is the address on screen. */
export function isCurrent(s: SavedSession, current: CurrentAddress | null): boolean {
  return (
    current !== null &&
    s.email.toLowerCase() === current.email.toLowerCase() &&
    sameRef({ provider: s.provider, baseUrl: s.baseUrl }, current.ref)
  );
}

export interface SwitchScreenProps {
  /** Live saved addresses, newest first. */
  list: SavedSession[];
  /** The address on screen before `s` (marked "current"). */
  current: CurrentAddress | null;
  columns: number;
  rows: number;
  clock: () => number;
  isActive: boolean;
  status: StatusMessage | null;
  onChoose: (session: SavedSession) => void;
  /** Forget this one (already confirmed); `there`: delete it at its provider too. */
  onForget: (session: SavedSession, there: boolean) => void;
  onBack: () => void;
}

const nameOf = (s: SavedSession) => providerName({ provider: s.provider, baseUrl: s.baseUrl });

/**
 * One row: number, address (padded to `emailCols`), time left, its provider when the list holds more
 * than one (else the title names it), whether it is the current one, and a refusal.
 */
export function switchRow(
  s: SavedSession,
  index: number,
  now: number,
  current: CurrentAddress | null,
  emailCols = 0,
  showProvider = true,
): string {
  const mark = isCurrent(s, current) ? '  (current)' : '';
  const email = s.email + ' '.repeat(Math.max(0, emailCols - textWidth(s.email)));
  const where = showProvider ? ` · ${nameOf(s)}` : '';
  return `${index < 9 ? index + 1 : ' '}  ${email}   ${lifeText(s, now)}${where}${mark}${refusedNote(s)}`;
}

/** The title: how many, and where they live when that is one provider for all. */
export function switchTitle(list: readonly SavedSession[]): string {
  const names = new Set(list.map(nameOf));
  const where = names.size === 1 ? ` on ${[...names][0]}` : '';
  return `tempmail-tui · saved addresses (${list.length})${where}`;
}

/** The switcher with its keys. */
export function SwitchScreen(props: SwitchScreenProps) {
  const { columns, rows, isActive } = props;
  const theme = useTheme();
  const now = useNow(props.clock);
  const list = stillLive(props.list, now);
  const [selected, setSelected] = useState(() => {
    const i = list.findIndex((s) => isCurrent(s, props.current));
    return Math.max(i, 0);
  });
  const [asking, setAsking] = useState<SavedSession | null>(null);
  const [help, setHelp] = useState(false);
  const index = Math.min(selected, Math.max(0, list.length - 1));
  const highlighted = list[index];

  useKeys(
    'switch',
    {
      down: () => setSelected(Math.min(list.length - 1, index + 1)),
      up: () => setSelected(Math.max(0, index - 1)),
      choose: (input) => {
        const target = /^[1-9]$/.test(input) ? list[Number(input) - 1] : highlighted;
        if (target) props.onChoose(target);
      },
      forget: () => highlighted && setAsking(highlighted),
      help: () => setHelp(true),
      back: props.onBack,
    },
    { isActive: isActive && asking === null && !help },
  );
  useForgetAnswer(asking?.provider ?? null, isActive && asking !== null, (choice) => {
    if (asking && choice !== 'no') props.onForget(asking, choice === 'there');
    setAsking(null);
  });

  // Title, blank, rows, blank, status (or the question, wrapped), footer.
  const bottomRows = asking
    ? forgetLines(asking.email, asking.provider, columns).length
    : statusLines(props.status?.text ?? '', columns).length;
  const listRows = Math.max(1, rows - 4 - bottomRows);
  // Just enough scrolling to keep the highlighted row in view.
  const first = Math.max(0, index - listRows + 1);
  const shown = list.slice(first, first + listRows);
  // Addresses padded to the longest (within reason), so the times line up.
  const emailCols = Math.min(48, Math.max(0, ...shown.map((s) => textWidth(s.email))));
  const manyProviders = new Set(list.map(nameOf)).size > 1;
  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Text bold color={theme.color('accent')} wrap="truncate">
        {fitToWidth(switchTitle(list), columns)}
      </Text>
      <Text> </Text>
      {help ? (
        <HelpScreen
          screen="switch"
          columns={columns}
          rows={listRows + 1}
          onClose={() => setHelp(false)}
          isActive={isActive}
        />
      ) : null}
      <Box display={help ? 'none' : 'flex'} flexDirection="column" height={listRows} overflowY="hidden">
        {list.length === 0 ? (
          <Text wrap="truncate">
            {fitToWidth('No saved address is still live. Esc goes back; n in the inbox makes a new one.', columns)}
          </Text>
        ) : (
          shown.map((s, i) => (
            <Text key={`${s.provider} ${s.baseUrl} ${s.email}`} wrap="truncate" inverse={first + i === index}>
              {fitToWidth(switchRow(s, first + i, now, props.current, emailCols, manyProviders), columns)}
            </Text>
          ))
        )}
      </Box>
      {help ? null : <Text> </Text>}
      {asking ? (
        <ForgetLine email={asking.email} provider={asking.provider} columns={columns} />
      ) : (
        <StatusLine status={props.status} columns={columns} />
      )}
      <Footer screen={asking ? forgetScreen(asking.provider) : help ? 'help' : 'switch'} columns={columns} />
    </Box>
  );
}
