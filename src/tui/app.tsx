/**
 * The app: the picker until there is an address, then the session screens, with the address switcher
 * (`s`) on top when asked. Every created address is saved (when a store is given) with its provider, and
 * the picker and the switcher offer the live saved ones, each on its own provider. It takes every
 * dependency as a prop (the providers, settings, the saved-session store, a clock, the bell, the
 * clipboard, the browser opener), so tests render it against real test services and the CLI wires the
 * real terminal.
 */
import { Box, useApp, useStdout } from 'ink';
import { useCallback, useEffect, useRef, useState } from 'react';
import { sameRef, type ProviderRef } from '../client/providers';
import type { SavedSession } from '../state/saved-sessions';
import { refOf } from './app-addresses';
import { type AppParts, type AppProps, appPicker, appSession, appSwitcher } from './app-screens';
import { ThemeProvider } from './widgets/theme';
import { useTerminalSize } from './widgets/use-terminal-size';
import { useSaved } from './saved/use-saved';
import { MarkBook } from './session/mark-book';
import { useKeys } from './widgets/use-keys';
import { useCatchAll } from './shell/use-catch-all';
import { useJobControl } from './shell/use-job-control';
import { rateWaitText, type RateWaits } from './shell/rate-waits';
import { useAppAddress } from './use-app-address';
import { useCreateOn } from './use-create-on';
import type { StatusMessage } from './wording/status-text';

export type { AppProps };

/** The whole terminal app. */
export function App(props: AppProps) {
  const { exit } = useApp();
  const { write } = useStdout();
  const { columns, rows } = useTerminalSize();
  const clock = props.clock ?? Date.now;
  const { providers } = props;
  const start = providers.choices[0]!;
  // Saved addresses this run can reach: the tempmail service it runs (or was pointed at) and every
  // public provider. Another tempmail service's addresses wait for a run pointed at it.
  const reachable = useCallback(
    (s: SavedSession) => (s.provider === 'tempmail' ? sameRef(refOf(s), start) : providers.get(refOf(s)) !== null),
    [providers, start],
  );
  const saved = useSaved(props.saved, clock, reachable);
  // The codes and links read so far, by address: they stay on their rows across n, s and back.
  const [markBook] = useState(() => props.markBook ?? new MarkBook());
  const { current, mode, setMode, notice, setNotice, created, chooseSaved, forget, openSwitcher } = useAppAddress(
    props,
    saved,
    start,
  );
  const quit = props.onQuit ?? (() => exit());
  const waiting = useRateWaitNotice(props.rateWaits, clock, setNotice);
  // The early domains serve the first picker only; a picker opened later asks again.
  const earlyDomains = useRef(props.domains);
  useEffect(() => {
    if (mode !== 'picker') earlyDomains.current = undefined;
  }, [mode]);
  // One line is left free: a frame as tall as the terminal makes Ink clear the whole screen each time.
  const height = Math.max(8, rows - 1);
  const localRef = props.local ? start : undefined;
  const isLocal = (ref: ProviderRef) => localRef !== undefined && sameRef(ref, localRef);

  const { save } = saved;
  // Local mode's catch-all: an inbox made by mail to a new name is saved, listed by s (use-catch-all.ts).
  useCatchAll({ local: props.local, ref: start, save, reload: saved.reload, say: setNotice });
  // Where new addresses go: p moves along the order; auto moves on past a provider that fails.
  const {
    createOn,
    provider: creating,
    next: nextChoice,
    nextProvider,
    unavailable,
  } = useCreateOn(providers, props.auto === true, setNotice);
  useGlobalKeys(props, write, setNotice);

  const sessionProvider = current ? providers.get(current.ref) : null;
  const storeError = saved.error ? ({ text: saved.error, kind: 'error' } as const) : null;
  const parts: AppParts = {
    props,
    columns,
    height,
    clock,
    write,
    current,
    setMode,
    mode,
    setNotice,
    notice: storeError ?? notice,
    isLocal,
    saved,
    markBook,
    forget,
    chooseSaved,
    quit,
  };
  return (
    <ThemeProvider noColor={props.noColor ?? false}>
      <Box flexDirection="column" width={columns} height={height}>
        {current && sessionProvider ? appSession(parts, current, sessionProvider, openSwitcher) : null}
        {mode === 'switch' ? appSwitcher(parts) : null}
        {mode === 'picker' && creating
          ? appPicker(parts, {
              createOn,
              creating,
              next: nextChoice,
              nextProvider,
              unavailable,
              early: sameRef(createOn, start) ? earlyDomains.current : undefined,
              first: sameRef(createOn, start),
              waiting,
              created,
              save,
            })
          : null}
      </Box>
    </ThemeProvider>
  );
}

/**
 * A call waiting out a provider's 429 says so (the next word on the status line replaces it); the
 * picker says it too while it creates (its own "Creating…" line would hide the notice): the wait it gives.
 */
function useRateWaitNotice(
  rateWaits: RateWaits | undefined,
  clock: () => number,
  setNotice: (notice: StatusMessage) => void,
) {
  const [waiting, setWaiting] = useState<{ text: string; untilMs: number } | null>(null);
  useEffect(
    () =>
      rateWaits?.subscribe((wait) => {
        setNotice({ text: rateWaitText(wait), kind: 'info' });
        setWaiting({ text: rateWaitText(wait), untilMs: clock() + wait.seconds * 1000 });
      }),
    [rateWaits, clock, setNotice],
  );
  return waiting;
}

/**
 * Ctrl-Z and Ctrl-L, on every screen. Ctrl-L: Ink's own write (empty) draws the whole last frame again,
 * on a screen cleared of what another program wrote over it.
 */
function useGlobalKeys(
  props: AppProps,
  write: (data: string) => void,
  setNotice: (notice: StatusMessage) => void,
): void {
  const sayInfo = useCallback((text: string) => setNotice({ text, kind: 'info' }), [setNotice]);
  const suspend = useJobControl(props.jobControl, sayInfo);
  useKeys(
    'global',
    {
      suspend,
      redraw: () => {
        props.clearScreen?.();
        write('');
      },
    },
    { isActive: true },
  );
}
