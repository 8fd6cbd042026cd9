/**
 * The whole app on one SSH channel: the same App as `tempmail-tui`, on this service (its own HTTP API on
 * loopback, as the app's local mode talks to its in-process service), the user's saved addresses and
 * read marks from user-data.ts, drawn on the channel's terminal (channel-terminal.ts). What cannot work
 * on a remote terminal is not wired: no job control (Ctrl-Z), no browser (`o` shows the link), and the
 * clipboard is the client's, through OSC 52. What the app learns of the client's terminal (size, TERM,
 * NO_COLOR, whether it clusters graphemes) is this session's alone: its Ink root renders in the widths
 * its terminal answered (text/active-widths.ts). Loaded only when a client asks for a shell.
 */
import chalk from 'chalk';
import { type Instance, render } from 'ink';
import { createProviderSet, type ProviderRef } from '../../client/providers';
import { createApi } from '../../client/tempmail/tempmail-client';
import { tempmailProvider } from '../../client/tempmail/tempmail-provider';
import { osc52 } from '../../platform/clipboard';
import { type TerminalWidths, widthsFor, withWidths } from '../../text/active-widths';
import { App } from '../../tui/app';
import { diffingStdout } from '../../tui/terminal/diff-stdout';
import { answerDeadline, queryGraphemeClustering } from '../../tui/terminal/grapheme-query';
import { keyByKey } from '../../tui/widgets/key-stdin';
import { RemoteProvider } from '../../tui/widgets/remote';
import type { ChannelTerminal } from './channel-terminal';
import type { UserData } from './user-data';
import { SSH_SERVICE_KEY } from './ssh-service-key';
import { SessionBoundary } from './session-boundary';

export interface RemoteAppOptions {
  terminal: ChannelTerminal;
  /** The service's own HTTP API, on loopback. */
  apiUrl: string;
  user: UserData;
  noColor: boolean;
}

/**
 * Chalk (under Ink) picks its colour level once per process, from the service's own stdout: a pipe or a
 * log file, no colour. The app only names the 16 basic colours, which every terminal a client brings
 * draws; a session that asks for none (NO_COLOR sent, TERM=dumb) gets none through the theme, its own.
 */
function colorsForClients(): void {
  if (chalk.level === 0) chalk.level = 1;
}

/** Frames a session draws at most each second (see the render options below). */
const REMOTE_MAX_FPS = 250;

/** What `a` says over SSH: files are not written on the server, nor can they reach the client's disk. */
export const NO_DOWNLOAD =
  'Attachments are not saved over SSH: run tempmail-tui on your machine with --base-url of this service, and press a there.';

/**
 * Asks the client's terminal whether it clusters graphemes, as the installed app asks its own
 * (terminal/grapheme-query.ts; TEMPMAIL_TERMINAL_ANSWER_MS in serve's environment bounds the wait, 250 ms
 * unset): the answer is this session's widths.
 */
async function askWidths(terminal: ChannelTerminal): Promise<TerminalWidths> {
  const answer = await queryGraphemeClustering(terminal.stdin, terminal.stdout, answerDeadline(process.env));
  return widthsFor(answer.clustering);
}

/**
 * Runs the app until the user quits (or `stop` is called); resolves with its exit status, or rejects with
 * the error that ended it (thrown while rendering, caught by SessionBoundary, or by a key's handler):
 * nothing of it is drawn.
 */
export function runRemoteApp(options: RemoteAppOptions): { done: Promise<number>; stop: () => void } {
  let stopped = false;
  let failure: Error | undefined;
  let drawn: { instance: Instance; widths: TerminalWidths } | undefined;
  const done = askWidths(options.terminal).then((widths) => {
    if (stopped) return 0;
    // A key handler that threw ends the app with its error, as an error while rendering does.
    const keyFailed = (error: Error) => {
      failure ??= error;
      stop();
    };
    drawn = { instance: drawApp(options, widths, keyFailed), widths };
    return drawn.instance.waitUntilExit().then(() => {
      if (failure) throw failure;
      return 0;
    });
  });
  const stop = () => {
    stopped = true;
    if (drawn) withWidths(drawn.widths, () => drawn?.instance.unmount());
  };
  return { done, stop };
}

/** The app on the session's terminal, its root rendering in `widths`. */
function drawApp(options: RemoteAppOptions, widths: TerminalWidths, keyFailed: (error: Error) => void): Instance {
  const { terminal, apiUrl, user } = options;
  colorsForClients();
  const start: ProviderRef = { provider: 'tempmail', baseUrl: SSH_SERVICE_KEY };
  const provider = tempmailProvider(createApi({ baseUrl: apiUrl }), apiUrl);
  const providers = createProviderSet({ choices: [start], known: [[start, provider]] });
  const screen = diffingStdout(terminal.stdout, widths);
  const copy = async (text: string, write: (data: string) => void) => {
    write(osc52(text));
    return 'Sent to your terminal via OSC 52';
  };
  const instance = withWidths(widths, () =>
    render(
      <SessionBoundary>
        <RemoteProvider value>
          <App
            providers={providers}
            settings={{ pollIntervalMs: 5000, bell: true, noDownload: NO_DOWNLOAD }}
            serviceLabel="Service: this SSH host"
            saved={{ store: user.sessions, serviceKey: SSH_SERVICE_KEY }}
            readMarks={user.readMarks}
            clearScreen={() => terminal.stdout.write('\x1b[H\x1b[2J')}
            ringBell={() => terminal.stdout.write('\x07')}
            copy={copy}
            noColor={options.noColor}
          />
        </RemoteProvider>
      </SessionBoundary>,
      {
        stdout: screen,
        stdin: keyByKey(terminal.stdin, widths, keyFailed),
        stderr: screen,
        exitOnCtrlC: true,
        patchConsole: false,
        alternateScreen: true,
        // A client that asked for a pty is a terminal, whatever the server's own environment says:
        // Ink would otherwise read CI=true on the server and draw only the last frame, at exit.
        interactive: true,
        // Ink's frame throttle is a debounce: a commit within its window of the last frame waits a whole
        // window from that commit. At 60 fps a key that came within 17 ms of a frame (keys typed quickly,
        // a key just after the countdown's frame) was drawn 17 ms late: 25 ms p95 key to frame over SSH,
        // 11 ms at 250 (bench figure ssh). 4 ms still joins the commits of one burst into one frame, and a
        // flood of keys stays paced one key per render by keyByKey.
        maxFps: REMOTE_MAX_FPS,
      },
    ),
  );
  const dispose = () => screen.dispose();
  instance.waitUntilExit().then(dispose, dispose);
  return instance;
}
