/**
 * The address picker: the live saved addresses first (to resume, with their remaining time and, where it
 * is another, their provider), then the provider's domains (random or custom name), each external-mail
 * account and "picked for me". Under the title: where new addresses go and what to know about it (a
 * local address only receives mail sent on this machine), and `p` to move on to the next provider.
 * Loading and errors are visible, and a provider that cannot be reached offers a retry while saved
 * addresses stay choosable. The custom name is checked as it is typed; a name in use is "taken, try
 * another". `x` on a saved address forgets it, after asking.
 */
import { Box, Text } from 'ink';
import type React from 'react';
import { useReducer } from 'react';
import type { MailProvider } from '../../client/client-types';
import type { ProviderRef } from '../../client/providers';
import { fitToWidth } from '../../text/text-width';
import type { SavedSession } from '../../state/saved-sessions';
import type { DomainList, Session } from '../../model/mail-types';
import { Footer, StatusLine, statusLines } from '../widgets/chrome';
import { HelpScreen } from '../widgets/help-screen';
import { useTheme } from '../widgets/theme';
import { type CommandHandlers, useKeys } from '../widgets/use-keys';
import { useNow } from '../widgets/use-now';
import type { Early } from '../shell/early';
import type { LocalServiceInfo } from '../shell/shell-types';
import type { StatusMessage } from '../wording/status-text';
import { DomainsNote, domainsNote } from './domains-note';
import { providerLine, providerName, providerNote } from '../wording/provider-text';
import { forgetLines, ForgetLine, forgetScreen, useForgetAnswer } from '../saved/forget-question';
import type { CurrentAddress } from '../saved/switch-screen';
import type { PickerChoice, PickerItem } from './picker-items';
import { listLayout, PickerList } from './picker-list';
import {
  initialPickerState,
  type PickerAction,
  pickerReducer,
  pickerScreen,
  pickerWindow,
  type PickerMove,
} from './picker-state';
import { CustomName } from './custom-name';
import { normalizePrefix } from './prefix-feedback';
import { chooseCommand, customNameCommands, pickerChoices } from './picker-commands';
import { type PickerHandle, usePicker } from './use-picker';

export interface PickerScreenProps {
  /** The provider new addresses are created on. */
  provider: MailProvider;
  /** Where that is. */
  where: ProviderRef;
  /** The provider `p` moves on to, and doing so; absent when there is no other. */
  next?: ProviderRef;
  onNextProvider?: () => void;
  /** The domains asked for early (see early.ts); without it the picker asks when it is shown. */
  domains?: Early<DomainList>;
  columns: number;
  rows: number;
  /** Names a configured tempmail service under the title ("Service: mail.example"); default from `where`. */
  serviceLabel?: string;
  /** Set when `where` is the in-process service: where its mail is received. */
  local?: LocalServiceInfo;
  isActive: boolean;
  onCreated: (session: Session) => void;
  /** A call waiting out the provider's 429 (until `untilMs`): said beside "Creating the address…". */
  waiting?: { text: string; untilMs: number } | null;
  /** The provider is down, limiting or blocking (its domains or a creation failed so): the app may move on. */
  onUnavailable?: (error: unknown) => void;
  /** An address made before its sign-in (a mail.tm account): saved at once, in case the sign-in fails. */
  onKept?: (pending: Session) => void;
  /** Live saved addresses (of any provider this run reaches), offered first. */
  saved?: readonly SavedSession[];
  /** The address on screen when the picker was opened over it. */
  current?: CurrentAddress | null;
  /** A saved address was chosen. */
  onResume?: (session: SavedSession) => void;
  /** `x` on a saved address, confirmed: forget it (`there`: delete it at its provider too). */
  onForget?: (session: SavedSession, there: boolean) => void;
  /** For the remaining times of saved addresses. */
  clock?: () => number;
  /** A line for the status bar when nothing else is said (e.g. "Forgot ..."). */
  notice?: StatusMessage | null;
  /** Set when there is an address to go back to (Esc). */
  onCancel?: () => void;
  onQuit: () => void;
}

// Nothing saved to forget: the footer leaves x out; no other provider: p.
const FORGET = ['forget'] as const;
const NO_PROVIDER = ['provider'] as const;

/** The picker's title lines and its status: what creating, a failure, or the last word says. */
function pickerLines(
  props: PickerScreenProps,
  picker: PickerHandle,
  at: { said: string | null; typing: boolean; now: number },
) {
  const { local, columns } = props;
  const serviceLine = local
    ? // A borrowed service ends with the process that runs it: say whose it is.
      `${local.sharedPid ? `Shared local service (pid ${local.sharedPid})` : 'Local service'}: mail is received via SMTP ${local.smtpHost}:${local.smtpPort}`
    : (props.serviceLabel ?? providerLine(props.where));
  const note = local
    ? providerNote({ provider: 'tempmail', baseUrl: 'local:' }, props.next, columns)
    : providerNote(props.where, props.next, columns);
  // A failed creation on a provider that is down, blocked or limiting: say where else to try.
  const wait = props.waiting && props.waiting.untilMs > at.now ? ` ${props.waiting.text}` : '';
  const busy =
    picker.creating && !at.typing
      ? `Creating the address…${wait}`
      : picker.error && props.next
        ? `${picker.error} · p: try ${providerName(props.next)}`
        : picker.error;
  let status: StatusMessage | null = props.notice ?? null;
  if (busy) status = { text: busy, kind: picker.error ? 'error' : 'info' };
  else if (at.said) status = { text: at.said, kind: 'info' };
  return { serviceLine, note, status };
}

/** What the picker's keys act on. */
interface PickerKeyParts {
  items: readonly PickerItem[];
  highlighted: PickerItem | undefined;
  move: (to: PickerMove) => void;
  choose: (choice: PickerChoice) => void;
  dispatch: (action: PickerAction) => void;
}

/** The picker's keys mapped to what they do. */
function pickerKeyHandlers(props: PickerScreenProps, picker: PickerHandle, k: PickerKeyParts): CommandHandlers {
  const { items, highlighted, move, choose, dispatch } = k;
  return {
    down: () => move('down'),
    up: () => move('up'),
    pageDown: () => move('pageDown'),
    pageUp: () => move('pageUp'),
    first: () => move('first'),
    last: () => move('last'),
    // 1-9: the choice that shows that digit, wherever the list is scrolled.
    choose: (input) => {
      const target = /^[1-9]$/.test(input) ? items[Number(input) - 1] : highlighted;
      if (target && !picker.creating) choose(target.value);
    },
    refresh: () => picker.domains.status === 'error' && picker.retry(),
    provider: () => {
      if (props.onNextProvider) props.onNextProvider();
      else dispatch({ type: 'say', text: 'No other provider is set up for this run.' });
    },
    forget: () => {
      const choice = highlighted?.value;
      if (choice?.kind === 'saved') dispatch({ type: 'ask-forget', session: choice.session });
      else dispatch({ type: 'say', text: 'x forgets a saved address: highlight a "Resume …" line first.' });
    },
    back: () => props.onCancel?.(),
    help: () => dispatch({ type: 'help', open: true }),
    quit: props.onQuit,
  };
}

/**
 * The picker's rows: title, service line, provider note, blank (or the way back) on top; the status (or
 * a question, wrapped) and the footer at the bottom; the body between, the domains' note under the list.
 */
function pickerRows(
  props: PickerScreenProps,
  picker: PickerHandle,
  at: { forgetting: SavedSession | null; status: StatusMessage | null; canGoBack: boolean; now: number },
) {
  const { columns, rows } = props;
  const { forgetting, status } = at;
  const bottomRows = forgetting
    ? forgetLines(forgetting.email, forgetting.provider, columns).length
    : statusLines(status?.text ?? '', columns).length;
  const bodyRows = Math.max(3, rows - 5 - bottomRows);
  const loadNote = domainsNote(
    picker.domains,
    { canGoBack: at.canGoBack, next: props.next ? providerName(props.next) : undefined },
    at.now,
    columns,
  );
  const listRows = Math.max(1, bodyRows - (loadNote?.rows ?? 0));
  return { bodyRows, loadNote, listRows };
}

/** The picker with its keys. */
export function PickerScreen(props: PickerScreenProps) {
  const { columns, isActive } = props;
  const theme = useTheme();
  const picker = usePicker(
    props.provider,
    props.onCreated,
    props.domains,
    props.clock,
    props.onKept,
    props.onUnavailable,
  );
  const now = useNow(props.clock ?? Date.now);
  const [state, dispatch] = useReducer(pickerReducer, initialPickerState);
  const { mode, said } = state;
  const custom = mode.kind === 'custom' ? mode : null;
  const forgetting = mode.kind === 'forgetting' ? mode.session : null;
  const help = mode.kind === 'help';
  const screen = pickerScreen(state);
  // While an address is being created the list does not take Enter (no second address), but moves,
  // q and ? still work: a slow service must not hold the keyboard.
  const pickerKeys = isActive && !help && !custom && !forgetting;

  const { resumable, items, itemsKey, start } = pickerChoices(props, picker, now);

  // The picker opened over a live address (n, or a lost service): Esc goes back to it, and says so.
  const canGoBack = Boolean(props.onCancel && props.current);
  const local = props.local;
  const { serviceLine, note, status } = pickerLines(props, picker, { said, typing: custom !== null, now });
  const { bodyRows, loadNote, listRows } = pickerRows(props, picker, { forgetting, status, canGoBack, now });
  const { shown } = listLayout(items.length, listRows);
  const { index, top } = pickerWindow(state, itemsKey, items.length, shown, start);
  const highlighted = items[index];
  const move = (to: PickerMove) =>
    dispatch({ type: 'move', items: itemsKey, count: items.length, rows: shown, to, start });

  const choose = chooseCommand(props, picker, dispatch);
  const keys = pickerKeyHandlers(props, picker, { items, highlighted, move, choose, dispatch });
  useKeys('picker', keys, { isActive: pickerKeys });
  useKeys(
    'prefix',
    { back: () => dispatch({ type: 'back' }) },
    { isActive: isActive && !help && custom !== null && !picker.creating },
  );
  useForgetAnswer(forgetting?.provider ?? null, isActive && forgetting !== null, (choice) => {
    if (forgetting && choice !== 'no') props.onForget?.(forgetting, choice === 'there');
    dispatch({ type: 'answered-forget', confirmed: choice !== 'no' });
  });

  const { problemOf, submitCustom } = customNameCommands(props, picker, dispatch, custom);

  let body: React.ReactNode;
  if (custom) {
    body = (
      <CustomName
        value={custom.value}
        domain={custom.domain}
        who={providerName(props.where)}
        problem={problemOf(custom.value)}
        taken={custom.taken}
        creating={picker.creating}
        focus={isActive && !help && !picker.creating}
        columns={columns}
        onTyped={(typed) => dispatch({ type: 'typed', value: normalizePrefix(typed) })}
        onSubmit={submitCustom}
      />
    );
  } else {
    body = (
      <Box flexDirection="column">
        {items.length > 0 ? (
          <PickerList items={items} index={index} top={top} rows={listRows} columns={columns} />
        ) : null}
        {loadNote ? <DomainsNote note={loadNote} columns={columns} /> : null}
        {items.length === 0 && !loadNote ? (
          <Text>The service offers no domains and no external accounts. Press q to quit.</Text>
        ) : null}
      </Box>
    );
  }

  return (
    <Box flexDirection="column" width={columns}>
      <Text bold color={theme.color('accent')} wrap="truncate">
        {fitToWidth('tempmail-tui · choose an address', columns)}
      </Text>
      <Text wrap="truncate" color={local ? theme.color('ok') : theme.color('muted')}>
        {fitToWidth(serviceLine, columns)}
      </Text>
      <Text wrap="truncate" color={note.warn ? theme.color('warn') : theme.color('muted')}>
        {fitToWidth(note.text, columns)}
      </Text>
      <Text wrap="truncate" color={theme.color('muted')}>
        {canGoBack ? fitToWidth(`Esc goes back to ${props.current?.email}`, columns) : ' '}
      </Text>
      <Box display={help ? 'none' : 'flex'} flexDirection="column" height={bodyRows} overflowY="hidden">
        {body}
      </Box>
      {help ? (
        <HelpScreen
          screen="picker"
          columns={columns}
          rows={bodyRows}
          onClose={() => dispatch({ type: 'help', open: false })}
          isActive={isActive && help}
        />
      ) : null}
      {forgetting ? (
        <ForgetLine email={forgetting.email} provider={forgetting.provider} columns={columns} />
      ) : (
        <StatusLine status={status} columns={columns} />
      )}
      <Footer
        screen={forgetting ? forgetScreen(forgetting.provider) : screen}
        columns={columns}
        hide={[...(resumable.length === 0 ? FORGET : []), ...(props.onNextProvider ? [] : NO_PROVIDER)]}
      />
    </Box>
  );
}
