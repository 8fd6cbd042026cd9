/**
 * Ctrl-Z for the App: suspends through Ink's own suspendTerminal() (suspend.ts says how), redraws after a
 * stop from outside, and says so on the status line when nothing could resume the app.
 */
import { useApp } from 'ink';
import { useCallback, useEffect } from 'react';
import type { JobControl, SuspendTerminal } from './suspend';

/** What Ctrl-Z does: nothing without job control (a test, no terminal). */
export function useJobControl(jobControl: JobControl | undefined, say: (text: string) => void): () => void {
  const suspendTerminal = useApp().suspendTerminal as SuspendTerminal;
  useEffect(() => jobControl?.watch(suspendTerminal), [jobControl, suspendTerminal]);
  return useCallback(() => {
    if (!jobControl) return;
    void jobControl.suspend(suspendTerminal).then((said) => {
      if (said) say(said);
    });
  }, [jobControl, suspendTerminal, say]);
}
