/**
 * The lines the viewer shows for a message in its mode: the body (the HTML part converted, or the text
 * part; `t` picks when it has both), or the source (`R`: the raw message, or the fields the service gave),
 * wrapped to the width. Both are terminal-safe lines; big ones are prepared in slices (use-rendered-body,
 * source-text) so a keypress never waits for them.
 */
import { useEffect, useMemo, useState } from 'react';
import type { Link } from '../../content/html-text';
import type { Message } from '../../model/mail-types';
import { activeWidths, withWidths } from '../../text/active-widths';
import {
  fieldText,
  isSmallSource,
  messageFields,
  PARSED_NOTE,
  sourceLines,
  sourceLinesAsync,
  sourceText,
} from '../source/source-text';
import type { SourceEntry } from '../source/use-message-source';
import { useRenderedBody } from './use-rendered-body';
import type { ViewerMode } from './viewer-state';

const NO_LINKS: Link[] = [];

export type ViewerLines =
  | { status: 'loading' | 'rendering'; what: string }
  | { status: 'error'; error: string }
  | { status: 'ready'; lines: string[] };

/** Which parts a message has (a part of only white space is none). */
export function partsOf(m: Message | undefined): { html: boolean; text: boolean } {
  return { html: (m?.bodyHtml ?? '').trim() !== '', text: (m?.bodyText ?? '').trim() !== '' };
}

/** The part shown: the chosen one when the message has it, else the one it has. */
export function shownPart(m: Message | undefined, mode: ViewerMode): 'html' | 'text' {
  const parts = partsOf(m);
  if (mode.part === 'text') return parts.text || !parts.html ? 'text' : 'html';
  return parts.html ? 'html' : 'text';
}

export interface ViewerLinesResult {
  view: ViewerLines;
  /** The body's links (numbered as in the body), also while the source is shown. */
  links: Link[];
  /** What the rule says is shown: "HTML part", "text part" (only when it has both), "source", "fields". */
  label: string;
}

/**
 * The viewer's lines for `message` (undefined while it loads) in `mode`. `source` is the fetched source
 * entry; with `sourcesAvailable` false the parsed message's fields stand in for it.
 */
export function useViewerLines(
  message: Message | undefined,
  mode: ViewerMode,
  source: SourceEntry | undefined,
  sourcesAvailable: boolean,
  columns: number,
): ViewerLinesResult {
  const part = shownPart(message, mode);
  // The text part alone is given to the converter when it is the one shown; same object while nothing changes.
  const input = useMemo(
    () => (message && part === 'text' && message.bodyHtml !== null ? { ...message, bodyHtml: null } : message),
    [message, part],
  );
  const view = useRenderedBody(input, columns);
  // The rendered body is the same object while nothing changes (the view around it is not).
  const body = view?.status === 'ready' ? view.body : null;
  const bodyLines = useMemo(() => (body ? body.text.split('\n') : null), [body]);
  const links = body?.links ?? NO_LINKS;

  // The raw message is cut at the width as it is; a listing of fields is wrapped at spaces.
  const words = !sourcesAvailable || (source?.status === 'ready' && source.source.kind === 'fields');
  const rawText = useMemo(() => {
    if (!mode.source) return null;
    if (!sourcesAvailable) return message ? fieldText(PARSED_NOTE, messageFields(message)) : null;
    return source?.status === 'ready' ? sourceText(source.source) : null;
  }, [mode.source, sourcesAvailable, message, source]);
  const small = rawText !== null && isSmallSource(rawText);
  const smallLines = useMemo(
    () => (rawText !== null && small ? sourceLines(rawText, columns, words) : null),
    [rawText, small, columns, words],
  );
  const [big, setBig] = useState<{ text: string; columns: number; lines: string[] } | null>(null);
  // This app's terminal widths (a render is in its root's): the long source is cut later, from an effect.
  const widths = activeWidths();
  useEffect(() => {
    if (rawText === null || small) return;
    const abort = new AbortController();
    withWidths(widths, () => sourceLinesAsync(rawText, columns, words, abort.signal)).then(
      (lines) => setBig({ text: rawText, columns, lines }),
      () => undefined,
    );
    return () => abort.abort();
  }, [rawText, small, columns, words, widths]);

  const parts = partsOf(message);
  if (mode.source) {
    const label = sourcesAvailable && source?.status === 'ready' && source.source.kind === 'raw' ? 'source' : 'fields';
    if (sourcesAvailable && source?.status === 'error')
      return { view: { status: 'error', error: source.error }, links, label: 'source' };
    if (rawText === null) return { view: { status: 'loading', what: 'the source' }, links, label: 'source' };
    const lines = smallLines ?? (big && big.text === rawText && big.columns === columns ? big.lines : null);
    return { view: lines ? { status: 'ready', lines } : { status: 'rendering', what: 'the source' }, links, label };
  }
  const label = parts.html && parts.text ? `${part === 'html' ? 'HTML' : 'text'} part` : '';
  if (!message) return { view: { status: 'loading', what: 'the message' }, links, label };
  return {
    view: bodyLines ? { status: 'ready', lines: bodyLines } : { status: 'rendering', what: 'the message' },
    links,
    label,
  };
}
