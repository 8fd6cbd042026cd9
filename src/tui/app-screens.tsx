/**
 * What the app draws: the session screens of the address on screen, the switcher, the picker, each
 * wired to the app's state. Plain functions of the app's parts, so the app itself only holds state.
 */
import type React from 'react';
import { refKey, type ProviderRef, type ProviderSet } from '../client/providers';
import type { MailProvider } from '../client/client-types';
import type { OpenResult } from '../platform/browser';
import type { ReadStateStore } from '../state/read-state';
import type { SavedSession } from '../state/saved-sessions';
import type { DomainList, Session } from '../model/mail-types';
import { type AppMode, type Current, refOf } from './app-addresses';
import { PickerScreen } from './picker/picker-screen';
import { SwitchScreen } from './saved/switch-screen';
import type { SavedConfig, SavedHandle } from './saved/use-saved';
import type { MarkBook } from './session/mark-book';
import { SessionView } from './session/session-view';
import type { Early } from './shell/early';
import type { RateWaits } from './shell/rate-waits';
import type { LocalServiceInfo } from './shell/shell-types';
import type { JobControl } from './shell/suspend';
import { providerName } from './wording/provider-text';
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
  /** The codes and links read, by address (default: a book of this app's own; a test reads it). */
  markBook?: MarkBook;
}

const noCopy = async () => 'No clipboard here: select the address with the mouse';
const noBrowser = async (): Promise<OpenResult> => ({ opened: false, reason: 'no-display' });

/** The app's state and callbacks, as its screens are wired to them. */
export interface AppParts {
  props: AppProps;
  columns: number;
  height: number;
  clock: () => number;
  /** Ink's write (an escape sequence, with the frame drawn again around it). */
  write: (data: string) => void;
  current: Current | null;
  mode: AppMode;
  setMode: (mode: AppMode) => void;
  setNotice: (notice: StatusMessage | null) => void;
  /** What the status line says (a store failure first). */
  notice: StatusMessage | null;
  isLocal: (ref: ProviderRef) => boolean;
  saved: SavedHandle;
  markBook: MarkBook;
  forget: (session: Session, ref: ProviderRef, there: boolean) => void;
  chooseSaved: (s: SavedSession) => void;
  quit: () => void;
}

/** The session screens of the address on screen. */
export function appSession(
  p: AppParts,
  current: Current,
  provider: MailProvider,
  openSwitcher: () => void,
): React.ReactNode {
  const { props, saved, write } = p;
  return (
    <SessionView
      key={`${current.ref.provider} ${current.ref.baseUrl} ${current.session.email} ${current.session.expiresAt?.getTime() ?? 'none'}`}
      provider={provider}
      where={p.isLocal(current.ref) ? undefined : providerName(current.ref)}
      session={current.session}
      intervalMs={props.settings.pollIntervalMs}
      bell={props.settings.bell}
      downloadDir={props.settings.downloadDir}
      noDownload={props.settings.noDownload}
      readMarks={props.readMarks ? { store: props.readMarks, serviceKey: refKey(current.ref) } : undefined}
      marks={p.markBook.of(`${refKey(current.ref)} ${current.session.email.toLowerCase()}`)}
      clock={p.clock}
      local={p.isLocal(current.ref) ? props.local : undefined}
      columns={p.columns}
      rows={p.height}
      active={p.mode === 'session'}
      ringBell={props.ringBell ?? (() => undefined)}
      copy={(text) => (props.copy ?? noCopy)(text, write)}
      openLink={props.openLink ?? noBrowser}
      notice={p.notice}
      onNewAddress={() => {
        saved.reload();
        p.setNotice(null);
        p.setMode('picker');
      }}
      onSwitch={openSwitcher}
      onForget={(there) => p.forget(current.session, current.ref, there)}
      onTokenAnswer={(known) => saved.setRefused(current.session.email, current.ref, !known)}
      onQuit={p.quit}
    />
  );
}

/** The saved-address switcher (`s`), on top of the session. */
export function appSwitcher(p: AppParts): React.ReactNode {
  const { current } = p;
  return (
    <SwitchScreen
      list={p.saved.list}
      current={current ? { email: current.session.email, ref: current.ref } : null}
      columns={p.columns}
      rows={p.height}
      clock={p.clock}
      isActive
      status={p.notice}
      onChoose={p.chooseSaved}
      onForget={(s, there) => p.forget(s, refOf(s), there)}
      onBack={() => p.setMode(current ? 'session' : 'picker')}
    />
  );
}

/** Where the picker creates, and what it says and hears. */
export interface PickerParts {
  createOn: ProviderRef;
  creating: MailProvider;
  next: ProviderRef | undefined;
  nextProvider: () => void;
  unavailable: (error: unknown) => void;
  /** The domains asked for before the first frame, for the first picker of the first provider. */
  early: Early<DomainList> | undefined;
  /** The picker is on the run's first provider (the service label names it). */
  first: boolean;
  waiting: { text: string; untilMs: number } | null;
  created: (s: Session, ref: ProviderRef) => void;
  save: (s: Session, ref: ProviderRef) => void;
}

/** The picker: a new address on `createOn`, or a saved one. */
export function appPicker(p: AppParts, k: PickerParts): React.ReactNode {
  const { current, props } = p;
  return (
    <PickerScreen
      // Another provider is another list: a new picker, asking that provider.
      key={`${k.createOn.provider} ${k.createOn.baseUrl}`}
      provider={k.creating}
      where={k.createOn}
      next={k.next}
      onNextProvider={k.next ? k.nextProvider : undefined}
      domains={k.early}
      columns={p.columns}
      rows={p.height}
      serviceLabel={k.first ? props.serviceLabel : undefined}
      local={p.isLocal(k.createOn) ? props.local : undefined}
      isActive
      saved={p.saved.list}
      current={current ? { email: current.session.email, ref: current.ref } : null}
      clock={p.clock}
      notice={p.notice}
      onCreated={(s) => k.created(s, k.createOn)}
      onKept={(s) => k.save(s, k.createOn)}
      onUnavailable={k.unavailable}
      waiting={k.waiting}
      onResume={p.chooseSaved}
      onForget={(s, there) => p.forget(s, refOf(s), there)}
      onCancel={current ? () => p.setMode('session') : undefined}
      onQuit={p.quit}
    />
  );
}
