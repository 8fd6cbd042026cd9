/**
 * The app: the picker until there is an address, then the session screens. It takes every dependency
 * as a prop (the client, settings, the local service, a clock, the bell, the clipboard), so tests render
 * it against a real test service and the CLI wires the real terminal.
 */
import { Box, useApp } from 'ink';
import React, { useCallback, useState } from 'react';
import type { TempMailApi } from '../api/types';
import type { Session } from '../core/types';
import { ThemeProvider } from './common/theme';
import { useTerminalSize } from './common/use-terminal-size';
import { PickerScreen } from './picker/picker-screen';
import { SessionView } from './session-view';
import type { LocalServiceInfo } from './types';

export interface AppProps {
  api: TempMailApi;
  /** Poll interval and bell, from the settings. */
  settings: { pollIntervalMs: number; bell: boolean };
  /** Set in local mode: where mail is sent. */
  local?: LocalServiceInfo;
  /** Shown in the picker when not in local mode, e.g. "Service: mail.example". */
  serviceLabel?: string;
  /** Milliseconds since the epoch (injected so tests control countdowns). */
  clock?: () => number;
  /** Rings the terminal bell (injected: tests count rings instead of writing BEL). */
  ringBell?: () => void;
  /** Copies text to the clipboard and says how, in one line. */
  copy?: (text: string) => Promise<string>;
  noColor?: boolean;
  /** Start on this address instead of the picker. */
  initialSession?: Session;
  /** Called on `q`; the default exits Ink. */
  onQuit?: () => void;
  /** Called whenever a new address is created (the CLI saves it). */
  onSession?: (session: Session) => void;
}

const noCopy = async () => 'No clipboard here: select the address with the mouse';

/** The whole terminal app. */
export function App(props: AppProps) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [session, setSession] = useState<Session | null>(props.initialSession ?? null);
  const [picking, setPicking] = useState(props.initialSession === undefined);
  const clock = props.clock ?? Date.now;
  const quit = props.onQuit ?? (() => exit());
  // One line is left free: a frame as tall as the terminal makes Ink clear the whole screen each time.
  const height = Math.max(8, rows - 1);

  const { onSession } = props;
  const created = useCallback(
    (s: Session) => {
      setSession(s);
      setPicking(false);
      onSession?.(s);
    },
    [onSession],
  );

  const local = props.local;
  const serviceLine = local
    ? `Local service: mail is received via SMTP ${local.smtpHost}:${local.smtpPort}`
    : (props.serviceLabel ?? '');
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
            clock={clock}
            local={local}
            columns={columns}
            rows={height}
            active={!picking}
            ringBell={props.ringBell ?? (() => undefined)}
            copy={props.copy ?? noCopy}
            onNewAddress={() => setPicking(true)}
            onQuit={quit}
          />
        ) : null}
        {picking ? (
          <PickerScreen
            api={props.api}
            columns={columns}
            rows={height}
            serviceLine={serviceLine}
            local={local}
            isActive={picking}
            onCreated={created}
            onCancel={session ? () => setPicking(false) : undefined}
            onQuit={quit}
          />
        ) : null}
      </Box>
    </ThemeProvider>
  );
}
