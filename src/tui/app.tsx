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
import { refKey, sameRef, type ProviderRef, type ProviderSet } from '../client/providers';
import type { OpenResult } from '../platform/browser';
import type { ReadStateStore } from '../state/read-state';
import type { SavedSession } from '../state/saved-sessions';
import type { DomainList, Session } from '../model/mail-types';
import { ThemeProvider } from './widgets/theme';
import type { Early } from './shell/early';
import { useTerminalSize } from './widgets/use-terminal-size';
import { PickerScreen } from './picker/picker-screen';
import { SwitchScreen } from './saved/switch-screen';
import { useSaved, type SavedConfig } from './saved/use-saved';
import { MarkBook } from './session/mark-book';
import { SessionView } from './session/session-view';
import { useKeys } from './widgets/use-keys';
import type { LocalServiceInfo } from './shell/shell-types';
import type { JobControl } from './shell/suspend';
import { useCatchAll } from './shell/use-catch-all';
import { useJobControl } from './shell/use-job-control';
import { describeError } from './wording/error-text';
import { providerName } from './wording/provider-text';
import { rateWaitText, type RateWaits } from './shell/rate-waits';
import { useCreateOn } from './use-create-on';
import type { StatusMessage } from './wording/status-text';

export interface AppProps {
  /**
   * The providers this run talks to. New addresses go to `choices[0]` at start (the picker's `p` moves
   * on through the others); saved addresses are resumed on their own.
   */
  providers: ProviderSet;
  /** Poll interval, bell and where attachments go, from the settings. */
  settings: { pollIntervalMs: number; bell: boolean; downloadDir?: string; noDownload?: string };
  /** Set in local mode (`providers.choices[0]` is then the in-process service): where mail is sent. */
  local?: LocalServiceInfo;
  /** Names the first provider in the picker when it is a configured tempmail service, e.g. "Service: mail.example". */
  serviceLabel?: string;
  /** Where created addresses are saved and found again; without it nothing is saved. */
  saved?: SavedConfig;
  /** Where the opened messages of each address are remembered; without it, only while the app runs. */
  readMarks?: ReadStateStore;
  /**
   * Ctrl-Z: suspends the process through Ink (the terminal is given back; src/tui/shell/suspend.ts) until
   * the shell's `fg`, or says why it cannot. Without it, Ctrl-Z does nothing (a test, or no terminal).
   */
  jobControl?: JobControl;
  /** Ctrl-L: clears the real terminal (the app then draws its whole frame on it). */
  clearScreen?: () => void;
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
  /** Start on this address (of the first provider) instead of the picker. */
  initialSession?: Session;
  /** Called on `q`; the default exits Ink. */
  onQuit?: () => void;
  /** Called whenever a new address is created (after it is saved). */
  onSession?: (session: Session) => void;
  /** The first provider's domains, asked for before the app was drawn: the first picker uses them instead of asking. */
  domains?: Early<DomainList>;
  /** A provider limiting requests and a call waiting it out: said on the status line. */
  rateWaits?: RateWaits;
  /**
   * `auto`: a provider that is down, limiting or blocking (its domains or a creation failed so) hands on
   * to the next of `providers.choices`, and the status line says which one and why.
   */
  auto?: boolean;
}

const noCopy = async () => 'No clipboard here: select the address with the mouse';
const noBrowser = async (): Promise<OpenResult> => ({ opened: false, reason: 'no-display' });
type Mode = 'session' | 'picker' | 'switch';

/** An address on screen and the provider it lives on. */
interface Current {
  session: Session;
  ref: ProviderRef;
}

const refOf = (s: SavedSession): ProviderRef => ({ provider: s.provider, baseUrl: s.baseUrl });
const sameAddress = (a: Current | null, email: string, ref: ProviderRef) =>
  a !== null && a.session.email.toLowerCase() === email.toLowerCase() && sameRef(a.ref, ref);

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
  const [markBook] = useState(() => new MarkBook());
  const [current, setCurrent] = useState<Current | null>(props.initialSession ? { session: props.initialSession, ref: start } : null);
  const [mode, setMode] = useState<Mode>(props.initialSession === undefined ? 'picker' : 'session');
  const [notice, setNotice] = useState<StatusMessage | null>(null);
  const quit = props.onQuit ?? (() => exit());
  // A call waiting out a provider's 429 says so (the next word on the status line replaces it).
  const { rateWaits } = props;
  // The picker says it too while it creates: its own "Creating…" line would hide the notice.
  const [waiting, setWaiting] = useState<{ text: string; untilMs: number } | null>(null);
  useEffect(
    () =>
      rateWaits?.subscribe((wait) => {
        setNotice({ text: rateWaitText(wait), kind: 'info' });
        setWaiting({ text: rateWaitText(wait), untilMs: clock() + wait.seconds * 1000 });
      }),
    [rateWaits, clock],
  );
  // The early domains serve the first picker only; a picker opened later asks again.
  const earlyDomains = useRef(props.domains);
  useEffect(() => {
    if (mode !== 'picker') earlyDomains.current = undefined;
  }, [mode]);
  // One line is left free: a frame as tall as the terminal makes Ink clear the whole screen each time.
  const height = Math.max(8, rows - 1);
  const localRef = props.local ? start : undefined;
  const isLocal = (ref: ProviderRef) => localRef !== undefined && sameRef(ref, localRef);

  const { onSession } = props;
  const { save } = saved;
  const created = useCallback(
    (s: Session, ref: ProviderRef) => {
      save(s, ref);
      setCurrent({ session: s, ref });
      setMode('session');
      setNotice(null);
      onSession?.(s);
    },
    [onSession, save],
  );
  const resume = (s: SavedSession) => {
    const ref = refOf(s);
    if (!providers.get(ref)) {
      setNotice({ text: `${s.email} lives on ${providerName(ref)}, which this run cannot reach`, kind: 'error' });
      return;
    }
    const { createdAt: _c, refusedAt: _r, usedAt: _u, provider: _p, baseUrl: _b, ...session } = s;
    saved.used(s.email, ref);
    setCurrent({ session, ref });
    setMode('session');
    setNotice(null);
  };
  const chooseSaved = (s: SavedSession) => (sameAddress(current, s.email, refOf(s)) ? setMode('session') : resume(s));

  const forgetHere = (email: string, ref: ProviderRef, said: string) => {
    const wasCurrent = sameAddress(current, email, ref);
    const found = saved.forget(email, ref);
    try {
      // Its read marks go with it (they would go at its expiry anyway).
      props.readMarks?.forget(refKey(ref), email);
    } catch {
      // Only marks: the address is forgotten, which is what was asked.
    }
    setNotice({ text: found ? said : `${email} was not saved here`, kind: 'info' });
    if (wasCurrent) {
      setCurrent(null);
      setMode('picker');
    }
  };
  /** Forgets an address; with `there`, deletes it at its provider first (and keeps it saved if that fails). */
  const forget = (session: Session, ref: ProviderRef, there: boolean) => {
    const provider = providers.get(ref);
    if (!there || !provider?.deleteAddress) return forgetHere(session.email, ref, `Forgot ${session.email}`);
    setNotice({ text: `Deleting ${session.email} at ${provider.info.label}…`, kind: 'info' });
    provider.deleteAddress(session).then(
      () => forgetHere(session.email, ref, `Deleted ${session.email} at ${provider.info.label} and forgot it`),
      (error: unknown) => setNotice({ text: `Not deleted at ${provider.info.label} (still saved): ${describeError(error)}`, kind: 'error' }),
    );
  };
  // Local mode's catch-all: an inbox made by mail to a new name is saved, listed by s (use-catch-all.ts).
  useCatchAll({ local: props.local, ref: start, save, reload: saved.reload, say: setNotice });
  const openSwitcher = () => {
    saved.reload();
    setNotice(null);
    setMode('switch');
  };
  // Where new addresses go: p moves along the order; auto moves on past a provider that fails.
  const { createOn, next: nextChoice, nextProvider, unavailable } = useCreateOn(providers.choices, props.auto === true, setNotice);


  // Ctrl-Z and Ctrl-L, on every screen. Ctrl-L: Ink's own write (empty) draws the whole last frame again,
  // on a screen cleared of what another program wrote over it.
  const sayInfo = useCallback((text: string) => setNotice({ text, kind: 'info' }), []);
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

  const local = props.local;
  const creating = providers.get(createOn);
  const sessionProvider = current ? providers.get(current.ref) : null;
  const storeError = saved.error ? ({ text: saved.error, kind: 'error' } as const) : null;
  return (
    <ThemeProvider noColor={props.noColor ?? false}>
      <Box flexDirection="column" width={columns} height={height}>
        {current && sessionProvider ? (
          <SessionView
            key={`${current.ref.provider} ${current.ref.baseUrl} ${current.session.email} ${current.session.expiresAt?.getTime() ?? 'none'}`}
            provider={sessionProvider}
            where={isLocal(current.ref) ? undefined : providerName(current.ref)}
            session={current.session}
            intervalMs={props.settings.pollIntervalMs}
            bell={props.settings.bell}
            downloadDir={props.settings.downloadDir}
            noDownload={props.settings.noDownload}
            readMarks={props.readMarks ? { store: props.readMarks, serviceKey: refKey(current.ref) } : undefined}
            marks={markBook.of(`${refKey(current.ref)} ${current.session.email.toLowerCase()}`)}
            clock={clock}
            local={isLocal(current.ref) ? local : undefined}
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
            onForget={(there) => forget(current.session, current.ref, there)}
            onTokenAnswer={(known) => saved.setRefused(current.session.email, current.ref, !known)}
            onQuit={quit}
          />
        ) : null}
        {mode === 'switch' ? (
          <SwitchScreen
            list={saved.list}
            current={current ? { email: current.session.email, ref: current.ref } : null}
            columns={columns}
            rows={height}
            clock={clock}
            isActive
            status={storeError ?? notice}
            onChoose={chooseSaved}
            onForget={(s, there) => forget(s, refOf(s), there)}
            onBack={() => setMode(current ? 'session' : 'picker')}
          />
        ) : null}
        {mode === 'picker' && creating ? (
          <PickerScreen
            // Another provider is another list: a new picker, asking that provider.
            key={`${createOn.provider} ${createOn.baseUrl}`}
            provider={creating}
            where={createOn}
            next={nextChoice}
            onNextProvider={nextChoice ? nextProvider : undefined}
            domains={sameRef(createOn, start) ? earlyDomains.current : undefined}
            columns={columns}
            rows={height}
            serviceLabel={sameRef(createOn, start) ? props.serviceLabel : undefined}
            local={isLocal(createOn) ? local : undefined}
            isActive
            saved={saved.list}
            current={current ? { email: current.session.email, ref: current.ref } : null}
            clock={clock}
            notice={storeError ?? notice}
            onCreated={(s) => created(s, createOn)}
            onKept={(s) => save(s, createOn)}
            onUnavailable={unavailable}
            waiting={waiting}
            onResume={chooseSaved}
            onForget={(s, there) => forget(s, refOf(s), there)}
            onCancel={current ? () => setMode('session') : undefined}
            onQuit={quit}
          />
        ) : null}
      </Box>
    </ThemeProvider>
  );
}
