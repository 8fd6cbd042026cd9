/**
 * The app: the picker until there is an address, then the session screens, with the address switcher
 * (`s`) on top when asked. Every created address is saved (when a store is given) and the picker and the
 * switcher offer the live saved ones. It takes every dependency as a prop (the client, settings, the
 * saved-session store, a clock, the bell, the clipboard, the browser opener), so tests render it against
 * a real test service and the CLI wires the real terminal.
 */
import { Box, useApp, useStdout } from 'ink';
import React, { useCallback, useEffect, useRef, useState } from 'react';
import type { TempMailApi } from '../client/client-types';
import type { OpenResult } from '../platform/browser';
import type { SavedSession } from '../state/saved-sessions';
import type { DomainList, Session } from '../model/mail-types';
import { ThemeProvider } from './widgets/theme';
import type { Early } from './shell/early';
import { useTerminalSize } from './widgets/use-terminal-size';
import { PickerScreen } from './picker/picker-screen';
import { SwitchScreen } from './saved/switch-screen';
import { useSaved, type SavedConfig } from './saved/use-saved';
import { SessionView } from './session/session-view';
import type { ReadMarksConfig } from './inbox/use-read-marks';
import { useKeys } from './widgets/use-keys';
import type { LocalServiceInfo } from './shell/shell-types';
import type { StatusMessage } from './wording/status-text';

export interface AppProps {
  api: TempMailApi;
  /** Poll interval, bell and where attachments go, from the settings. */
  settings: { pollIntervalMs: number; bell: boolean; downloadDir?: string };
  /** Set in local mode: where mail is sent. */
  local?: LocalServiceInfo;
  /** Shown in the picker when not in local mode, e.g. "Service: mail.example". */
  serviceLabel?: string;
  /** Where created addresses are saved and found again; without it nothing is saved. */
  saved?: SavedConfig;
  /** Where the opened messages of each saved address are remembered; without it, only while the app runs. */
  readMarks?: ReadMarksConfig;
  /**
   * Ctrl-Z: suspends the process (the terminal is given back; src/tui/shell/suspend.ts) and returns when
   * it runs again, after `redraw` has drawn the screen anew; or returns what to say when it cannot.
   * Without it, Ctrl-Z does nothing (a test, or no terminal).
   */
  onSuspend?: (redraw: () => void) => string | null;
  /** Milliseconds since the epoch (injected so tests control countdowns). */
  clock?: () => number;
  /** Rings the terminal bell (injected: tests count rings instead of writing BEL). */
  ringBell?: () => void;
  /**
   * Copies text to the clipboard and says how, in one line. `write` puts an escape sequence (OSC 52) on
   * the terminal through Ink, which redraws its frame around it so the screen stays whole.
   */
  copy?: (text: string, write: (sequence: string) => void) => Promise<string>;
  /** Opens a link in a browser where there is a display (src/platform/browser.ts); default: never. */
  openLink?: (url: string) => Promise<OpenResult>;
  noColor?: boolean;
  /** Start on this address instead of the picker. */
  initialSession?: Session;
  /** Called on `q`; the default exits Ink. */
  onQuit?: () => void;
  /** Called whenever a new address is created (after it is saved). */
  onSession?: (session: Session) => void;
  /** The domains, asked for before the app was drawn: the first picker uses them instead of asking. */
  domains?: Early<DomainList>;
}

const noCopy = async () => 'No clipboard here: select the address with the mouse';
const noBrowser = async (): Promise<OpenResult> => ({ opened: false, reason: 'no-display' });
type Mode = 'session' | 'picker' | 'switch';

/** The whole terminal app. */
export function App(props: AppProps) {
  const { exit } = useApp();
  const { write } = useStdout();
  const { columns, rows } = useTerminalSize();
  const clock = props.clock ?? Date.now;
  const saved = useSaved(props.saved, clock);
  const [session, setSession] = useState<Session | null>(props.initialSession ?? null);
  const [mode, setMode] = useState<Mode>(props.initialSession === undefined ? 'picker' : 'session');
  const [notice, setNotice] = useState<StatusMessage | null>(null);
  const quit = props.onQuit ?? (() => exit());
  // The early domains serve the first picker only; a picker opened later asks again.
  const earlyDomains = useRef(props.domains);
  useEffect(() => {
    if (mode !== 'picker') earlyDomains.current = undefined;
  }, [mode]);
  // One line is left free: a frame as tall as the terminal makes Ink clear the whole screen each time.
  const height = Math.max(8, rows - 1);

  const { onSession } = props;
  const { save } = saved;
  const created = useCallback(
    (s: Session) => {
      save(s);
      setSession(s);
      setMode('session');
      setNotice(null);
      onSession?.(s);
    },
    [onSession, save],
  );
  const resume = (s: SavedSession) => {
    setSession({ email: s.email, token: s.token, expiresAt: s.expiresAt });
    setMode('session');
    setNotice(null);
  };
  const forget = (email: string) => {
    const wasCurrent = session !== null && session.email.toLowerCase() === email.toLowerCase();
    const found = saved.forget(email);
    try {
      // Its read marks go with it (they would go at its expiry anyway).
      props.readMarks?.store.forget(props.readMarks.serviceKey, email);
    } catch {
      // Only marks: the address is forgotten, which is what was asked.
    }
    setNotice({ text: found ? `Forgot ${email}` : `${email} was not saved here`, kind: 'info' });
    if (wasCurrent) {
      setSession(null);
      setMode('picker');
    }
  };
  const openSwitcher = () => {
    saved.reload();
    setNotice(null);
    setMode('switch');
  };

  // Ctrl-Z, on every screen: Ink's own write (empty) redraws the last frame on the screen given back.
  useKeys(
    'global',
    {
      suspend: () => {
        const said = props.onSuspend?.(() => write(''));
        if (said) setNotice({ text: said, kind: 'info' });
      },
    },
    { isActive: props.onSuspend !== undefined },
  );

  const local = props.local;
  const serviceLine = local
    ? // A borrowed service ends with the process that runs it: say whose it is.
      `${local.sharedPid ? `Shared local service (pid ${local.sharedPid})` : 'Local service'}: mail is received via SMTP ${local.smtpHost}:${local.smtpPort}`
    : (props.serviceLabel ?? '');
  const storeError = saved.error ? ({ text: saved.error, kind: 'error' } as const) : null;
  return (
    <ThemeProvider noColor={props.noColor ?? false}>
      <Box flexDirection="column" width={columns} height={height}>
        {session ? (
          <SessionView
            key={`${session.email} ${session.expiresAt.getTime()}`}
            api={props.api}
            session={session}
            intervalMs={props.settings.pollIntervalMs}
            bell={props.settings.bell}
            downloadDir={props.settings.downloadDir}
            readMarks={props.readMarks}
            clock={clock}
            local={local}
            columns={columns}
            rows={height}
            active={mode === 'session'}
            ringBell={props.ringBell ?? (() => undefined)}
            copy={(text) => (props.copy ?? noCopy)(text, write)}
            openLink={props.openLink ?? noBrowser}
            notice={storeError ?? notice}
            onNewAddress={() => {
              saved.reload();
              setNotice(null);
              setMode('picker');
            }}
            onSwitch={openSwitcher}
            onForget={() => forget(session.email)}
            onTokenAnswer={(known) => saved.setRefused(session.email, !known)}
            onQuit={quit}
          />
        ) : null}
        {mode === 'switch' ? (
          <SwitchScreen
            list={saved.list}
            current={session?.email ?? null}
            columns={columns}
            rows={height}
            clock={clock}
            isActive
            status={storeError ?? notice}
            onChoose={(s) => (session && s.email === session.email ? setMode('session') : resume(s))}
            onForget={(s) => forget(s.email)}
            onBack={() => setMode(session ? 'session' : 'picker')}
          />
        ) : null}
        {mode === 'picker' ? (
          <PickerScreen
            api={props.api}
            domains={earlyDomains.current}
            columns={columns}
            rows={height}
            serviceLine={serviceLine}
            local={local}
            isActive
            saved={saved.list}
            current={session?.email ?? null}
            clock={clock}
            notice={storeError ?? notice}
            onCreated={created}
            onResume={(s) => (session && s.email === session.email ? setMode('session') : resume(s))}
            onForget={(s) => forget(s.email)}
            onCancel={session ? () => setMode('session') : undefined}
            onQuit={quit}
          />
        ) : null}
      </Box>
    </ThemeProvider>
  );
}
