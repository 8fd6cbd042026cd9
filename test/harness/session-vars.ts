/** The environment variables through which a program reaches the developer's own terminal session. */
export const DEVELOPER_SESSION_VARS = [
  'TMUX',
  'TMUX_PANE',
  'STY',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
  'DBUS_SESSION_BUS_ADDRESS',
  'SSH_TTY',
  'TERM_PROGRAM',
  'KITTY_WINDOW_ID',
  'WEZTERM_PANE',
] as const;
