/**
 * The whole app on one SSH channel: the same App as `tempmail-tui`, on this service (its own HTTP API on
 * loopback, as the app's local mode talks to its in-process service), the user's saved addresses and
 * read marks from user-data.ts, drawn on the channel's terminal (channel-terminal.ts). What cannot work
 * on a remote terminal is not wired: no job control (Ctrl-Z), no browser (`o` shows the link), and the
 * clipboard is the client's, through OSC 52. Loaded only when a client asks for a shell.
 */
import chalk from 'chalk';
import { render } from 'ink';
import { createProviderSet, type ProviderRef } from '../../client/providers';
import { createApi } from '../../client/tempmail/tempmail-client';
import { tempmailProvider } from '../../client/tempmail/tempmail-provider';
import { osc52 } from '../../platform/clipboard';
import { App } from '../../tui/app';
import { diffingStdout } from '../../tui/terminal/diff-stdout';
import { keyByKey } from '../../tui/widgets/key-stdin';
import { RemoteProvider } from '../../tui/widgets/remote';
import type { ChannelTerminal } from './channel-terminal';
import type { UserData } from './user-data';
import { SSH_SERVICE_KEY } from './ssh-service-key';

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

/** Runs the app until the user quits (or `stop` is called); resolves with its exit status. */
export function runRemoteApp(options: RemoteAppOptions): { done: Promise<number>; stop: () => void } {
  const { terminal, apiUrl, user } = options;
  colorsForClients();
  const start: ProviderRef = { provider: 'tempmail', baseUrl: SSH_SERVICE_KEY };
  const provider = tempmailProvider(createApi({ baseUrl: apiUrl }), apiUrl);
  const providers = createProviderSet({ choices: [start], known: [[start, provider]] });
  const screen = diffingStdout(terminal.stdout);
  const copy = async (text: string, write: (data: string) => void) => {
    write(osc52(text));
    return 'Sent to your terminal via OSC 52';
  };
  const instance = render(
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
    </RemoteProvider>,
    {
      stdout: screen,
      stdin: keyByKey(terminal.stdin),
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
  );
  const done = instance.waitUntilExit().then(
    () => 0,
    () => 1,
  );
  void done.finally(() => screen.dispose());
  return { done, stop: () => instance.unmount() };
}
