/**
 * Runs the app on the real terminal, on a service made ready by app-service.ts (the local one when none
 * is configured): opens the saved addresses and their read marks, draws on the alternate screen (Ink's
 * `alternateScreen`, which also gives the main screen back however the process ends), gives the terminal
 * back on Ctrl-Z until `fg` (suspend.ts, on Ink's suspendTerminal), and ends on `q`, Ctrl+C or a signal
 * (SIGINT from `kill -INT`, SIGTERM, SIGHUP) the same way, so the in-process service closes too.
 * Keys reach Ink one at a time (widgets/key-stdin.ts), however many arrive in one read.
 */
import { render } from 'ink';
import { preloadHttp } from '../../client/http/http-client';
import { holdAppMemory } from '../../platform/young-generation';
import { openInBrowser } from '../../platform/browser';
import { copyToClipboard } from '../../platform/clipboard';
import type { Settings } from '../../state/app-config';
import { openSavedSessions } from '../../state/saved-sessions';
import { safeLine } from '../../text/safe-text';
import { App } from '../app';
import type { CliIo } from './shell-types';
import { startRef, type AppService } from './app-service';
import { serviceLabel } from '../wording/provider-text';
import { keyByKey } from '../widgets/key-stdin';
import { diffingStdout } from '../terminal/diff-stdout';
import { noColorRequested } from '../widgets/theme';
import { openReadState } from '../../state/read-state';
import { createJobControl } from './suspend';
import { widthsFor, withWidths } from '../../text/active-widths';
import type { GraphemeAnswer } from '../terminal/grapheme-query';

export { serviceLabel };

/**
 * The key under which a tempmail service's addresses are saved: its normalized URL (what the scripting
 * commands use too), or for the in-process service "local:" plus its data directory (see startRef).
 */
export function serviceKey(baseUrl: string | undefined, env: NodeJS.ProcessEnv): string {
  return startRef({ baseUrl }, env).baseUrl;
}

/** Runs the app until the user quits; resolves with the exit status. */
export async function runApp({
  settings,
  io,
  service,
  graphemes,
}: {
  settings: Settings;
  io: CliIo;
  service: AppService;
  /** The terminal's answer about grapheme clustering (terminal/grapheme-query.ts), when asked. */
  graphemes?: Promise<GraphemeAnswer>;
}): Promise<number> {
  const { stdout, stderr, stdin, env } = io;
  const { providers, start, baseUrl, local } = service;
  // Emoji sequences are measured as the terminal draws them when it says it clusters graphemes; the
  // first frame waits for the answer (a round trip, bounded by the query's deadline). The answer is this
  // app's: its root renders in these widths (terminal/root-widths.ts), as does its frame diff.
  const widths = widthsFor((await graphemes)?.clustering ?? false);

  // Only the cells that changed reach the terminal (the countdown's second is a few bytes, not a screen).
  const screen = stdout.isTTY ? diffingStdout(stdout, widths) : undefined;
  // Job control needs a terminal to give back (and a key to ask for it).
  const jobControl = stdin.isTTY ? createJobControl() : undefined;

  // Made once: drawing again (below) must hand the App the very same saved store and callbacks.
  const saved = { store: openSavedSessions({ env }), serviceKey: start.baseUrl };
  const readMarks = openReadState({ env });
  const ringBell = () => stdout.write('\x07');
  // The cursor home and the screen erased; the diff writer's next frame goes whole (Ink clears first).
  const clearScreen = () => stdout.write('\x1b[H\x1b[2J');
  const copy = async (text: string, write: (data: string) => void) =>
    (await copyToClipboard(text, { write, env })).message;
  const openLink = (url: string) => openInBrowser(url, { env });
  const app = () => (
    <App
      providers={providers}
      settings={settings}
      local={
        local
          ? {
              smtpHost: local.smtpHost,
              smtpPort: local.smtpPort,
              sharedPid: local.sharedPid,
              onCatchAll: (l) => local.onCatchAll(l),
            }
          : undefined
      }
      serviceLabel={start.provider === 'tempmail' ? serviceLabel(local?.httpUrl ?? baseUrl) : undefined}
      saved={saved}
      readMarks={readMarks}
      jobControl={jobControl}
      clearScreen={stdout.isTTY ? clearScreen : undefined}
      ringBell={ringBell}
      copy={copy}
      openLink={openLink}
      noColor={noColorRequested(env)}
      domains={service.domains}
      rateWaits={service.rateWaits}
      auto={settings.provider === 'auto'}
    />
  );
  const instance = withWidths(widths, () =>
    render(app(), {
      stdout: screen ?? stdout,
      stdin: stdin.isTTY ? keyByKey(stdin, widths) : stdin,
      stderr: stderr as NodeJS.WriteStream,
      exitOnCtrlC: true,
      patchConsole: true,
      // Entered now, left when Ink unmounts: on q, on a signal, and when the process exits any other way.
      alternateScreen: true,
      // Ink draws at most this often; a key that comes just after the countdown's frame waits for the next
      // slot (33 ms at Ink's default 30). Frames cost a few changed cells now.
      maxFps: 60,
    }),
  );
  // Once the first frame is on the terminal (Ink 8 writes it on a later turn, not inside render()), the
  // HTTP client's code loads, before the first key needs it, and the heap is held near what it keeps
  // (young-generation.ts). Any sooner, and loading got (with node:http2, tls and undici) delayed the
  // first frame.
  void (screen?.firstFrame ?? Promise.resolve()).then(() =>
    setImmediate(() => {
      preloadHttp();
      void holdAppMemory();
    }),
  );

  // Drawn again when the local service changes hands (the window it was borrowed from quit and this one
  // took over): the picker says whose service it is, and the SMTP target stays the right one.
  const unfollow = local?.onChange(() => instance.rerender(app()));
  // A closed terminal (SIGHUP), a polite kill (SIGTERM) or an interrupt sent from outside (SIGINT: Ctrl+C
  // itself reaches Ink as a key in raw mode) ends the app like `q` does, instead of the default action
  // that would leave the alternate screen up and the local service's lock behind.
  const stop = () => withWidths(widths, () => instance.unmount());
  const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const signal of SIGNALS) process.once(signal, stop);

  let code = 0;
  try {
    await instance.waitUntilExit();
  } catch (error) {
    // Ink has unmounted (and left the alternate screen) before it rejects.
    code = 1;
    const why = error instanceof Error ? error.message : String(error);
    stderr.write(`tempmail-tui: ${safeLine(why, 300)}\n`);
  } finally {
    for (const signal of SIGNALS) process.off(signal, stop);
    screen?.dispose();
    unfollow?.();
  }
  await local?.close();
  await service.autoLocal?.close();
  return code;
}
