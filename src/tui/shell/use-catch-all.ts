/**
 * Local mode's catch-all in the app: an inbox made by mail to a name nobody had made is saved as if the
 * user had made it, so `s` lists it and opens it, and the status line says so (docs/app.md#local-mode).
 */
import { useEffect } from 'react';
import type { ProviderRef } from '../../client/providers';
import type { Session } from '../../model/mail-types';
import { catchAllText } from '../wording/status-text';
import type { StatusMessage } from '../wording/status-text';
import type { LocalServiceInfo } from './shell-types';

export interface CatchAllInput {
  local: LocalServiceInfo | undefined;
  /** The local service's provider, under which the inbox is saved. */
  ref: ProviderRef;
  save(session: Session, ref: ProviderRef): void;
  /** Reads the saved list again (the switcher's). */
  reload(): void;
  say(notice: StatusMessage): void;
}

/** Saves and announces each inbox the local service's catch-all makes. */
export function useCatchAll({ local, ref, save, reload, say }: CatchAllInput): void {
  const subscribe = local?.onCatchAll;
  useEffect(
    () =>
      subscribe?.((made) => {
        save(made, ref);
        reload();
        say({ text: catchAllText(made.email), kind: 'info' });
      }),
    [subscribe, save, reload, say, ref],
  );
}
