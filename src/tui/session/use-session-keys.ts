/**
 * The session's keys outside its screens: the answers to its questions (delete, leave, forget, which
 * attachment, replace a file), the filter input's and the search input's Enter and Esc. Each listens
 * only while its question or input is shown.
 */
import type { ProviderId } from '../../client/client-types';
import type { MessageSummary } from '../../model/mail-types';
import type { MutableRefObject } from 'react';
import type { InboxHandle } from '../inbox/use-inbox';
import type { Screen } from '../keymap/keymap';
import { useForgetAnswer } from '../saved/forget-question';
import type { SourceCache } from '../source/use-message-source';
import type { MessageCache } from '../viewer/use-message-cache';
import { useKeys } from '../widgets/use-keys';
import { subjectLabel } from '../wording/display-format';
import type { SessionActions } from './session-actions';
import type { Question } from './session-bottom';
import type { Reading } from './use-reading';
import { useSaveQuestions } from './use-save-questions';

export interface SessionKeysInput {
  active: boolean;
  screen: Screen;
  /** The question's screen, when one is asked. */
  asking: Screen | null;
  question: Question | null;
  setQuestion: (question: Question | null) => void;
  filtering: boolean;
  setFiltering: (on: boolean) => void;
  clearFilter: () => void;
  actions: SessionActions;
  reading: Reading;
  info: (text: string) => void;
  providerId: ProviderId;
  onNewAddress: () => void;
  onForget: (there: boolean) => void;
  /** `d`, confirmed. */
  remove: (message: MessageSummary) => Promise<void>;
}

/** Listens for the answers and inputs; gives `a`'s start (which attachment of a message to save). */
export function useSessionKeys(input: SessionKeysInput) {
  const { active, question, setQuestion, info, screen } = input;
  useKeys(
    'confirm',
    {
      yes: () => {
        const q = question;
        setQuestion(null);
        if (q?.kind === 'delete') void input.remove(q.message);
        if (q?.kind === 'leave') input.onNewAddress();
      },
      no: () => {
        setQuestion(null);
        info('Cancelled');
      },
    },
    { isActive: active && input.asking === 'confirm' && question?.kind !== 'forget' },
  );
  // Forgetting: y/n, or (an address its provider can delete) y, D or no.
  useForgetAnswer(input.providerId, active && question?.kind === 'forget', (choice) => {
    setQuestion(null);
    if (choice === 'no') info('Cancelled');
    else input.onForget(choice === 'there');
  });
  // Which attachment, and whether to replace a file of the same name.
  const saveFrom = useSaveQuestions({ question, setQuestion, actions: input.actions, info, screen, active });
  useKeys(
    'filter',
    {
      submit: () => input.setFiltering(false),
      back: input.clearFilter,
    },
    { isActive: active && input.filtering && !question },
  );
  useKeys(
    'search',
    { submit: input.reading.keepSearch, back: input.reading.clearSearch },
    { isActive: active && screen === 'search' },
  );
  return saveFrom;
}

/** What deleting a message touches. */
export interface RemoveDeps {
  actions: SessionActions;
  mounted: MutableRefObject<boolean>;
  inbox: InboxHandle;
  cache: MessageCache;
  sources: SourceCache;
  reading: Reading;
  info: (text: string) => void;
}

/** Deletes `m` at the provider, then from the list, the caches and the viewer, and says so. */
export async function removeMessage(deps: RemoveDeps, m: MessageSummary): Promise<void> {
  if (!(await deps.actions.deleteMessage(m.id))) return;
  if (!deps.mounted.current) return;
  deps.inbox.dispatch({ type: 'removed', id: m.id });
  deps.cache.evict(m.id);
  deps.sources.evict(m.id);
  deps.reading.closeIf(m.id);
  deps.info(`Deleted "${subjectLabel(m.subject)}"`);
}
