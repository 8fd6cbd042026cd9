/**
 * Around one SSH session's app: an error thrown while it renders (or in an effect) is caught here, and
 * nothing of it is drawn. Ink's own boundary would draw the error's overview, its stack and lines of the
 * service's source, on the client's screen; this one draws nothing and ends the app with the error
 * (Ink's `waitUntilExit` rejects with it), which ends that session alone: ssh-session.ts writes the
 * client one line and logs the error.
 */
import { useApp } from 'ink';
import { Component, type ReactNode } from 'react';

class Catch extends Component<{ failed(error: Error): void; children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override componentDidCatch(error: unknown): void {
    this.props.failed(error instanceof Error ? error : new Error(String(error)));
  }

  override render(): ReactNode {
    return this.state.failed ? null : this.props.children;
  }
}

export function SessionBoundary({ children }: { children: ReactNode }): ReactNode {
  const { exit } = useApp();
  // Once React is done with the commit that caught it (the instance's public unmount takes no error).
  return <Catch failed={(error) => setImmediate(() => exit(error))}>{children}</Catch>;
}
