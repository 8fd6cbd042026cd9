/**
 * Whether the app runs for a client at the other end of an SSH connection (src/server/ssh/): what needs
 * the user's own machine (a browser, job control, files in their download directory) cannot happen there,
 * so the help shows what each key does over SSH, and leaves out the keys that do nothing there.
 */
import { createContext, useContext } from 'react';

const RemoteContext = createContext(false);

/** Provides the answer to the app under it (the SSH front door's app says true). */
export const RemoteProvider = RemoteContext.Provider;

/** True when the app is drawn over SSH. */
export function useRemote(): boolean {
  return useContext(RemoteContext);
}
