/**
 * A message body as wrapped terminal text for the current width. Small bodies are converted at once (no
 * "rendering" flash); anything bigger, HTML or plain text, goes through renderBodyAsync in slices with
 * event-loop yields, so a 2 MB newsletter never blocks the keyboard; its beginning is shown as soon as
 * it is converted (ending in a line that says the rest is coming) and the whole replaces it, and a stale
 * render is aborted when the user moves on. The viewer never shows a body cut at a cap: there is
 * nothing to "load all" afterwards.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import type { RenderedBody } from '../../content/html-text';
import { activeWidths, withWidths } from '../../text/active-widths';
import type { Message } from '../../model/mail-types';
import { describeError } from '../wording/error-text';
import { useReader, type Reader } from './lazy-reader';

export type BodyView = { status: 'rendering' } | { status: 'ready'; body: RenderedBody };

// Up to this much the synchronous conversion costs a few ms: no reason to go async. (1.5 slices of
// html-text.ts's SLICE_BYTES; spelled out so this module does not load the converter at start.)
const SYNC_LIMIT = 48 * 1024;

const fallback = (error: unknown): RenderedBody => ({
  text: `[could not show this message: ${describeError(error)}]`,
  links: [],
});

/** Length of the body that will be shown: the HTML part when it has any content, else the text part. */
export function shownLength(message: Pick<Message, 'bodyHtml' | 'bodyText'>): number {
  const html = message.bodyHtml ?? '';
  return html.trim() !== '' ? html.length : (message.bodyText?.length ?? 0);
}

// Capped at SYNC_LIMIT: an HTML part that shows nothing falls back to its text part, which can be
// big; that comes back truncated and is then rendered whole, asynchronously.
function renderNow(reader: Reader, message: Message, width: number): RenderedBody {
  try {
    return reader.renderBody(message, width, { maxBytes: SYNC_LIMIT });
  } catch (error) {
    return fallback(error);
  }
}

/** The rendered body of `message` at `width` columns; null while no message is given. */
export function useRenderedBody(message: Message | undefined, width: number): BodyView | null {
  // The converter is loaded on first use: until then the body is "rendering".
  const loaded = useReader();
  const reader = loaded instanceof Error ? undefined : loaded;
  const small = message !== undefined && shownLength(message) <= SYNC_LIMIT;
  const syncBody = useMemo(
    () => (reader && message && small ? renderNow(reader, message, width) : null),
    [reader, message, small, width],
  );
  const whole = syncBody !== null && syncBody.truncated === undefined;
  const [big, setBig] = useState<{ message: Message; width: number; body: RenderedBody } | null>(null);
  // Which message the body shown is of: a message opened anew shows its beginning early; one already
  // shown, wrapped again for a new width, keeps its old lines (and the reader's place) until the whole.
  const shownOf = useRef<Message | undefined>(undefined);
  shownOf.current = big?.message;
  // This app's terminal widths (a render is in its root's): the slices run later, from an effect.
  const widths = activeWidths();

  useEffect(() => {
    if (!reader || !message || whole) return;
    const abort = new AbortController();
    const partial =
      shownOf.current === message
        ? undefined
        : (body: RenderedBody) => !abort.signal.aborted && setBig({ message, width, body });
    withWidths(widths, () => reader.renderBodyAsync(message, width, abort.signal, partial)).then(
      (body) => setBig({ message, width, body }),
      (error: unknown) => {
        if (!abort.signal.aborted) setBig({ message, width, body: fallback(error) });
      },
    );
    return () => abort.abort();
  }, [reader, message, whole, width, widths]);

  if (!message) return null;
  if (loaded instanceof Error) return { status: 'ready', body: fallback(loaded) };
  if (whole) return { status: 'ready', body: syncBody };
  if (big && big.message === message && big.width === width) return { status: 'ready', body: big.body };
  return { status: 'rendering' };
}
