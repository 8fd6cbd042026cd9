/**
 * Every path the program uses, in one module. XDG variables are honoured (env-paths reads them on
 * Linux); TEMPMAIL_TUI_HOME points everything at one directory, which is how tests stay in a temp dir.
 */
import envPaths from 'env-paths';
import { join } from 'node:path';

export interface AppPaths {
  /** Reference service data (sessions, messages). */
  data: string;
  /** Saved sessions of the app. */
  state: string;
  /** config.json lives here. */
  config: string;
  /** Downloaded attachments. */
  downloads: string;
  /** What can be thrown away and made again (Node's compiled code of the program). */
  cache: string;
}

export function appPaths(env: NodeJS.ProcessEnv = process.env): AppPaths {
  const home = env.TEMPMAIL_TUI_HOME;
  if (home) {
    return {
      data: join(home, 'data'),
      state: join(home, 'state'),
      config: join(home, 'config'),
      downloads: join(home, 'downloads'),
      cache: join(home, 'cache'),
    };
  }
  const p = envPaths('tempmail-tui', { suffix: '' });
  // env-paths reads XDG_* at import time of process.env; honour an explicitly passed env too.
  return {
    data: env.XDG_DATA_HOME ? join(env.XDG_DATA_HOME, 'tempmail-tui') : p.data,
    // env-paths calls the XDG state directory `log`.
    state: env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'tempmail-tui') : p.log,
    config: env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'tempmail-tui') : p.config,
    downloads: join(env.HOME ?? p.data, 'Downloads'),
    cache: env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, 'tempmail-tui') : p.cache,
  };
}
