/**
 * Runs first in every test worker (vitest.config.ts, setupFiles): the developer's own terminal, tmux and
 * clipboard are never a test's to touch. Every child a test starts inherits this environment, so with
 * these names gone no app under test can reach the developer's tmux server, X or Wayland display, or
 * terminal multiplexer; a test that wants one (a tmux of its own) sets it in its child's environment.
 */
import { DEVELOPER_SESSION_VARS } from './session-vars';

for (const name of DEVELOPER_SESSION_VARS) delete process.env[name];
