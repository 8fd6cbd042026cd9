/** sessionScreen (use-session-view.ts): which screen the session's keys and footer are on. */
import { describe, expect, it } from 'vitest';
import { sessionScreen } from '../../../src/tui/session/use-session-view';

const none = { question: null, help: false, filtering: false, viewing: false, search: null };

describe('sessionScreen', () => {
  it('is the inbox, or the viewer while a message is open', () => {
    expect(sessionScreen(none).screen).toBe('inbox');
    expect(sessionScreen({ ...none, viewing: true }).screen).toBe('viewer');
  });

  it('is the search while typed in the viewer, then found; a search does not leave the inbox', () => {
    expect(sessionScreen({ ...none, viewing: true, search: { typing: true } })).toMatchObject({
      screen: 'search',
      searchScreen: 'search',
    });
    expect(sessionScreen({ ...none, viewing: true, search: { typing: false } }).screen).toBe('found');
    expect(sessionScreen({ ...none, search: { typing: false } }).screen).toBe('inbox');
  });

  it('puts a question before the help, the help before the filter, the filter before the viewer', () => {
    const all = { question: { kind: 'leave', lasts: 'an hour' } as const, help: true, filtering: true, viewing: true };
    expect(sessionScreen({ ...all, search: null })).toMatchObject({ screen: 'confirm', asking: 'confirm' });
    expect(sessionScreen({ ...all, question: null, search: null }).screen).toBe('help');
    expect(sessionScreen({ ...all, question: null, help: false, search: null }).screen).toBe('filter');
  });
});
