/**
 * THE key table: command -> keys -> description -> screens, as data. keymap.ts reads it for input, the
 * `?` help, the footer hints and the docs; nothing else lists keys. Conventions follow aerc/mutt
 * (docs/architecture.md, "Keys"), with arrows and Page/Home/End too.
 */
import type { Binding, KeySpec, Screen, Special } from './keymap-types';

/** Screens that answer every key of another screen that they do not bind themselves. */
export const INHERITS: Partial<Record<Screen, Screen>> = { found: 'viewer' };

const char = (c: string): KeySpec => ({ char: c });
const special = (s: Special): KeySpec => ({ special: s });

/** The table. Order is the order of the help screen and footer. */
export const KEYMAP: readonly Binding[] = [
  {
    command: 'down',
    keys: [char('j'), special('downArrow')],
    description: {
      picker: 'next choice',
      inbox: 'next message',
      viewer: 'scroll down one line',
      switch: 'next address',
    },
    screens: ['picker', 'inbox', 'viewer', 'switch'],
    hint: 'move',
  },
  {
    command: 'up',
    keys: [char('k'), special('upArrow')],
    description: {
      picker: 'previous choice',
      inbox: 'previous message',
      viewer: 'scroll up one line',
      switch: 'previous address',
    },
    screens: ['picker', 'inbox', 'viewer', 'switch'],
    hint: 'move',
  },
  {
    command: 'pageDown',
    keys: [char(' '), special('pageDown')],
    description: { picker: 'next page of choices', inbox: 'next page of messages', viewer: 'next page' },
    screens: ['picker', 'inbox', 'viewer'],
  },
  {
    command: 'pageUp',
    keys: [char('b'), special('pageUp')],
    description: { picker: 'previous page of choices', inbox: 'previous page of messages', viewer: 'previous page' },
    screens: ['picker', 'inbox', 'viewer'],
  },
  {
    command: 'first',
    keys: [char('g'), special('home')],
    description: { picker: 'first choice', inbox: 'first (newest) message', viewer: 'top of the message' },
    screens: ['picker', 'inbox', 'viewer'],
  },
  {
    command: 'last',
    keys: [char('G'), special('end')],
    description: { picker: 'last choice', inbox: 'last (oldest) message', viewer: 'bottom of the message' },
    screens: ['picker', 'inbox', 'viewer'],
  },
  {
    command: 'choose',
    keys: [special('return'), { digits: '1-9' }],
    description: {
      picker: 'create or resume the highlighted address (1-9: the line with that digit)',
      switch: 'switch to the highlighted address (1-9: the line with that digit)',
    },
    screens: ['picker', 'switch'],
    hint: 'choose',
  },
  {
    command: 'submit',
    keys: [special('return')],
    description: {
      prefix: 'create the address with this name',
      filter: 'keep this filter',
      search: 'keep this search (then n and N move between the matches)',
      viewer: 'pick the link number typed so far (with 10+ links)',
      attachment: 'save the attachment whose number is typed so far (with 10+ attachments)',
    },
    screens: ['prefix', 'filter', 'search', 'viewer', 'attachment'],
    hint: 'ok',
    footer: ['prefix', 'filter', 'search'],
  },
  { command: 'open', keys: [special('return')], description: 'open the message', screens: ['inbox'], hint: 'open' },
  // From one message to the next without the list, as in mutt's pager; the view (headers, source, part) stays.
  {
    command: 'nextMessage',
    keys: [char('J')],
    description: 'open the next message of the list (as filtered), in the same view',
    screens: ['viewer'],
    hint: 'next',
  },
  {
    command: 'previousMessage',
    keys: [char('K')],
    description: 'open the previous message of the list (as filtered), in the same view',
    screens: ['viewer'],
    hint: 'next',
  },
  {
    command: 'delete',
    keys: [char('d')],
    description: 'delete the message (asks first)',
    screens: ['inbox', 'viewer'],
    hint: 'delete',
  },
  {
    command: 'refresh',
    keys: [char('r')],
    description: {
      picker: 'retry loading the domains now',
      inbox: 'check for mail now',
      viewer: 'retry loading the message (or its source)',
    },
    screens: ['picker', 'inbox', 'viewer'],
    hint: 'refresh',
    // The inbox checks by itself and the viewer retries only after an error: the footer room goes elsewhere.
    footer: ['picker'],
  },
  // A first mail with one key: the empty inbox of local mode says so; help only, the footer has no room.
  {
    command: 'sample',
    keys: [char('T')],
    description:
      'send this address a sample message (local mode): HTML with a code and a link, over the local SMTP port',
    screens: ['inbox'],
    hint: 'sample',
    footer: [],
  },
  {
    command: 'newAddress',
    keys: [char('n')],
    description: 'new address (asks before leaving a live one)',
    screens: ['inbox'],
    hint: 'new',
  },
  {
    command: 'copy',
    keys: [char('c')],
    description: 'copy the address to the clipboard',
    screens: ['inbox'],
    hint: 'copy',
  },
  {
    command: 'switch',
    keys: [char('s')],
    description: 'switch to another saved address (they keep their mail)',
    screens: ['inbox'],
    hint: 'switch',
  },
  {
    command: 'provider',
    keys: [char('p')],
    description:
      'create on the next provider of providerOrder (mail.tm, TempMail.lol, Guerrilla Mail, ...), named on the status line: a public one gets mail from anywhere',
    screens: ['picker'],
    hint: 'provider',
  },
  {
    command: 'forget',
    keys: [char('x')],
    description: {
      inbox: 'forget this address (asks; then the picker)',
      switch: 'forget the highlighted address (asks)',
      picker: 'forget the highlighted saved address (asks)',
    },
    screens: ['inbox', 'switch', 'picker'],
    hint: 'forget',
    footer: ['switch', 'picker'],
  },
  {
    command: 'yank',
    keys: [char('y')],
    description: 'copy the code (or the picked link, or the detected link)',
    screens: ['viewer'],
    hint: 'copy',
  },
  // `c` copies in the inbox; in the viewer it copies the code, or says why there is none (help only: y is in the footer).
  {
    command: 'copyCode',
    keys: [char('c')],
    description: 'copy the code (or say why there is none)',
    screens: ['viewer'],
    hint: 'copy code',
    footer: [],
  },
  {
    command: 'openLink',
    keys: [char('o')],
    description: 'open the picked (or detected) link in a browser; with no display, show and copy it',
    remote: 'show the picked (or detected) link, clickable (OSC 8), and copy it to your clipboard (OSC 52)',
    screens: ['viewer'],
    hint: 'open',
  },
  {
    command: 'save',
    keys: [char('a')],
    description: 'save an attachment to the download directory (then its number, when there are several)',
    remote: null,
    screens: ['viewer'],
    hint: 'save',
  },
  {
    command: 'filter',
    keys: [char('/')],
    description: 'filter by sender or subject',
    screens: ['inbox'],
    hint: 'filter',
  },
  {
    command: 'nextMatch',
    keys: [char('n')],
    description: 'next match (from the last, the first again)',
    screens: ['found'],
    hint: 'match',
  },
  { command: 'previousMatch', keys: [char('N')], description: 'previous match', screens: ['found'], hint: 'match' },
  // Esc ends the search first; q still goes back to the inbox.
  {
    command: 'clearSearch',
    keys: [special('escape')],
    description: 'clear the search',
    screens: ['found'],
    hint: 'clear',
  },
  // In the help only: the footer's room goes to the keys of codes, links and attachments.
  {
    command: 'source',
    keys: [char('R')],
    description: 'show the raw source of the message (all headers, the MIME parts); again: the message',
    screens: ['viewer'],
    hint: 'source',
    footer: [],
  },
  {
    command: 'part',
    keys: [char('t')],
    description: 'switch between the text part and the HTML part (when it has both; kept for the next messages)',
    screens: ['viewer'],
    hint: 'part',
    footer: [],
  },
  {
    command: 'saveMessage',
    keys: [char('S')],
    description: 'save the message as an .eml file to the download directory',
    remote: null,
    screens: ['viewer'],
    hint: 'save .eml',
    footer: [],
  },
  // In the help only: the footer's room goes to the keys of codes, links and attachments.
  {
    command: 'headers',
    keys: [char('H')],
    description: 'show or hide the headers',
    screens: ['viewer'],
    hint: 'headers',
    footer: [],
  },
  {
    command: 'link',
    keys: [{ digits: '0-9' }],
    description: 'pick link N (type its number): shown in full; y copies it, o opens it',
    screens: ['viewer'],
    hint: 'link',
  },
  // After the link keys: a tight footer drops it first (the help lists it).
  {
    command: 'search',
    keys: [char('/')],
    description: 'search in the message (case matters only when the search has a capital)',
    screens: ['viewer'],
    hint: 'search',
  },
  {
    command: 'back',
    keys: [special('escape'), { char: 'q', only: ['viewer', 'help', 'switch'] }],
    description: {
      viewer: 'back to the inbox',
      help: 'close the help',
      prefix: 'back to the list',
      filter: 'clear the filter',
      search: 'clear the search',
      inbox: 'clear the filter (when one is set)',
      picker: 'back to the current address (when there is one)',
      switch: 'back to the current address',
    },
    screens: ['viewer', 'help', 'prefix', 'filter', 'search', 'inbox', 'picker', 'switch'],
    hint: 'back',
    // In the picker, Esc works only when there is an address to go back to: not worth a footer entry.
    footer: ['viewer', 'help', 'prefix', 'filter', 'search', 'switch'],
  },
  {
    command: 'help',
    keys: [char('?')],
    description: {
      picker: 'this help',
      inbox: 'this help',
      viewer: 'this help',
      switch: 'this help',
      help: 'close the help',
    },
    screens: ['picker', 'inbox', 'viewer', 'switch', 'help'],
    hint: 'help',
  },
  {
    command: 'quit',
    keys: [char('q')],
    description: { picker: 'quit', inbox: 'quit (the address stays saved; it receives mail while its service runs)' },
    screens: ['picker', 'inbox'],
    hint: 'quit',
  },
  {
    command: 'yes',
    keys: [char('y'), char('Y')],
    description: { confirm: 'yes, do it', forgetAccount: 'forget it here only (it lives on at its provider)' },
    screens: ['confirm', 'forgetAccount'],
    hint: 'yes',
  },
  {
    command: 'deleteAccount',
    keys: [char('D')],
    description: 'forget it and delete it at its provider too (mail.tm: the account and its mail, for good)',
    screens: ['forgetAccount'],
    hint: 'delete there too',
  },
  {
    command: 'no',
    keys: [{ any: true }],
    description: 'no, leave it as it is',
    screens: ['confirm', 'forgetAccount'],
    hint: 'no',
  },
  {
    command: 'choose',
    keys: [{ digits: '0-9' }],
    description: 'save attachment N (type its number; Enter ends one that could go on, like 1 of 12)',
    screens: ['attachment'],
    hint: 'save',
  },
  // The attachment's name is taken in the download directory: never replaced without this answer.
  {
    command: 'overwrite',
    keys: [char('o'), char('O')],
    description: 'replace the existing file',
    screens: ['overwrite'],
    hint: 'overwrite',
  },
  {
    command: 'keepBoth',
    keys: [char('k'), char('K')],
    description: 'keep both: save under the next free number, like "report (1).pdf"',
    screens: ['overwrite'],
    hint: 'keep both',
  },
  {
    command: 'no',
    keys: [{ any: true }],
    description: { attachment: 'cancel', overwrite: 'cancel: nothing is saved, the existing file stays as it is' },
    screens: ['attachment', 'overwrite'],
    hint: 'cancel',
  },
  // Job control, as in any terminal program: the terminal is put back, the shell's `fg` resumes.
  {
    command: 'suspend',
    keys: [{ ctrl: 'z' }],
    // Stopped, the app checks nothing, and in local mode its in-process service takes no mail either.
    description: 'suspend to the shell: no mail is checked (in local mode none received) until fg',
    remote: null,
    screens: ['global'],
  },
  // Only changed cells are drawn: what another program wrote over the screen stays until this.
  { command: 'redraw', keys: [{ ctrl: 'l' }], description: 'draw the whole screen anew', screens: ['global'] },
  // The help scrolls when its lines do not fit (a small window); its last line then says these keys.
  {
    command: 'down',
    keys: [char('j'), special('downArrow')],
    description: 'scroll the help down one line',
    screens: ['help'],
  },
  {
    command: 'up',
    keys: [char('k'), special('upArrow')],
    description: 'scroll the help up one line',
    screens: ['help'],
  },
  {
    command: 'pageDown',
    keys: [char(' '), special('pageDown')],
    description: 'next page of the help',
    screens: ['help'],
  },
  {
    command: 'pageUp',
    keys: [char('b'), special('pageUp')],
    description: 'previous page of the help',
    screens: ['help'],
  },
  { command: 'first', keys: [char('g'), special('home')], description: 'top of the help', screens: ['help'] },
  { command: 'last', keys: [char('G'), special('end')], description: 'bottom of the help', screens: ['help'] },
];
