/**
 * Colours by role, switched off entirely under NO_COLOR (https://no-color.org). Chalk, under Ink, does
 * not read NO_COLOR, so every coloured Text asks here instead of naming a colour itself. Emphasis that
 * is not colour (bold, inverse) stays, which keeps the selection visible without colour.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';

export type ColorRole = 'accent' | 'muted' | 'error' | 'ok' | 'warn' | 'fresh';

const PALETTE: Record<ColorRole, string> = {
  accent: 'cyan',
  muted: 'gray',
  error: 'red',
  ok: 'green',
  warn: 'yellow',
  fresh: 'magenta',
};

export interface Theme {
  /** The colour for a role, or undefined when colours are off. */
  color(role: ColorRole): string | undefined;
  noColor: boolean;
}

const make = (noColor: boolean): Theme => ({ noColor, color: (role) => (noColor ? undefined : PALETTE[role]) });
const ThemeContext = createContext<Theme>(make(false));

/** True when the environment asks for no colour: NO_COLOR set to anything but the empty string. */
export function noColorRequested(env: NodeJS.ProcessEnv): boolean {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '';
}

/** Provides the theme to the tree. */
export function ThemeProvider({ noColor, children }: { noColor: boolean; children: ReactNode }) {
  // The same theme object while the setting stays: a new one would redraw every component that reads it.
  const theme = useMemo(() => make(noColor), [noColor]);
  return <ThemeContext.Provider value={theme}>{children}</ThemeContext.Provider>;
}

/** The current theme. */
export const useTheme = (): Theme => useContext(ThemeContext);
