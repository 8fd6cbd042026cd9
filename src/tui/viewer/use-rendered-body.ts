/**
 * A message body as wrapped terminal text for the current width. Small bodies are converted at once
 * (no "rendering" flash); big HTML goes through renderBodyAsync in slices with event-loop yields, so a
 * 2 MB newsletter never blocks the keyboard, and a stale render is aborted when the user moves on.
 */
import { useEffect, useMemo, useState } from 'react';
import { renderBody, renderBodyAsync, SLICE_BYTES, type RenderedBody } from '../../core/html-text';
import type { Message } from '../../core/types';
import { describeError } from '../errors';

export type BodyView = { status: 'rendering' } | { status: 'ready'; body: RenderedBody };

// Up to this much HTML the synchronous conversion costs a few ms: no reason to go async.
const SYNC_LIMIT = SLICE_BYTES * 1.5;

const fallback = (error: unknown): RenderedBody => ({ text: `[could not show this message: ${describeError(error)}]`, links: [] });

function renderNow(message: Message, width: number): RenderedBody {
  try {
    return renderBody(message, width);
  } catch (error) {
    return fallback(error);
  }
}

/** The rendered body of `message` at `width` columns; null while no message is given. */
export function useRenderedBody(message: Message | undefined, width: number): BodyView | null {
  const small = message !== undefined && (message.bodyHtml?.length ?? 0) <= SYNC_LIMIT;
  const syncBody = useMemo(() => (message && small ? renderNow(message, width) : null), [message, small, width]);
  const [big, setBig] = useState<{ message: Message; width: number; body: RenderedBody } | null>(null);

  useEffect(() => {
    if (!message || small) return;
    const abort = new AbortController();
    renderBodyAsync(message, width, abort.signal).then(
      (body) => setBig({ message, width, body }),
      (error: unknown) => {
        if (!abort.signal.aborted) setBig({ message, width, body: fallback(error) });
      },
    );
    return () => abort.abort();
  }, [message, small, width]);

  if (!message) return null;
  if (syncBody) return { status: 'ready', body: syncBody };
  if (big && big.message === message && big.width === width) return { status: 'ready', body: big.body };
  return { status: 'rendering' };
}
