/** The terminal's size, re-read on every resize so the layout follows the window. */
import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

export interface TerminalSize {
  columns: number;
  rows: number;
}

// What a terminal that does not say its size (a pipe, a test stream) is taken to be.
const FALLBACK: TerminalSize = { columns: 80, rows: 24 };
// Below this the layout has no room to say anything useful; it is drawn as if this big and clipped.
const MIN: TerminalSize = { columns: 40, rows: 10 };

// Ink types stdout as any writable stream; a terminal's (or a test's) also says its size.
function read(stream: NodeJS.WritableStream): TerminalSize {
  const stdout = stream as { columns?: number; rows?: number };
  const columns = (stdout.columns ?? 0) > 0 ? (stdout.columns as number) : FALLBACK.columns;
  const rows = (stdout.rows ?? 0) > 0 ? (stdout.rows as number) : FALLBACK.rows;
  return { columns: Math.max(MIN.columns, columns), rows: Math.max(MIN.rows, rows) };
}

/** Columns and rows of the output terminal; re-renders on resize. */
export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => read(stdout));
  useEffect(() => {
    const onResize = () => {
      const next = read(stdout);
      setSize((prev) => (prev.columns === next.columns && prev.rows === next.rows ? prev : next));
    };
    stdout.on('resize', onResize);
    onResize();
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return size;
}
