/**
 * The `?` help over SSH (src/tui/widgets/remote.tsx): each key says what it does there, and the keys that
 * do nothing there (saving files on the server, job control) are not listed; outside SSH, all of them are.
 */
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { HelpScreen } from '../../../src/tui/widgets/help-screen';
import { RemoteProvider } from '../../../src/tui/widgets/remote';
import { helpRows } from '../../../src/tui/keymap/keymap';

const flat = (frame: string | undefined) => (frame ?? '').replace(/\s+/g, ' ');

function viewerHelp(remote: boolean): string {
  const app = render(
    <RemoteProvider value={remote}>
      <HelpScreen screen="viewer" columns={200} rows={80} onClose={() => undefined} isActive={false} />
    </RemoteProvider>,
  );
  const frame = flat(app.lastFrame());
  app.unmount();
  return frame;
}

describe('the help over SSH', () => {
  it('leaves out saving to the download directory and job control, and says what o does there', () => {
    const help = viewerHelp(true);
    expect(help).toContain('Keys: reading a message');
    expect(help).not.toContain('save an attachment');
    expect(help).not.toContain('.eml');
    expect(help).not.toContain('suspend');
    expect(help).toContain('copy it to your clipboard');
    expect(help).not.toContain('in a browser');
  });

  it('lists every key outside SSH', () => {
    const help = viewerHelp(false);
    for (const text of ['save an attachment', '.eml', 'suspend', 'in a browser']) expect(help).toContain(text);
  });

  it('drops only the rows that do nothing over SSH', () => {
    const local = helpRows('viewer');
    const remote = helpRows('viewer', true, true);
    expect(local.length - remote.length).toBe(3);
  });
});
