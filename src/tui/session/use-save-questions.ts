/**
 * The questions `a` may ask and the keys that answer them: which attachment, when a message has several;
 * and what to do when its file name is taken in the download directory (o overwrite, k keep both, any
 * other key leaves the file alone). The questions are the session's, one at a time on its status line.
 */
import type { AttachmentInfo, MessageSummary } from '../../model/mail-types';
import { useKeys } from '../widgets/use-keys';
import type { Screen } from '../keymap/keymap';
import type { ConflictChoice, SessionActions } from './session-actions';
import { attachmentDigit, type Question } from './session-bottom';

export interface SaveQuestionsInput {
  question: Question | null;
  setQuestion: (question: Question | null) => void;
  actions: SessionActions;
  info: (text: string) => void;
  /** The screen that reads keys now: each question listens only while it is asked. */
  screen: Screen;
  active: boolean;
}

/** Listens for the answers; returns what `a` calls with the opened message's attachments. */
export function useSaveQuestions(
  input: SaveQuestionsInput,
): (message: MessageSummary, attachments: readonly AttachmentInfo[]) => void {
  const { question, setQuestion, actions, info } = input;
  const cancel = () => {
    setQuestion(null);
    info('Cancelled');
  };
  useKeys(
    'attachment',
    {
      choose: (digit) => {
        if (question?.kind !== 'attachment') return;
        const { save, wait, none } = attachmentDigit(question, digit);
        setQuestion(wait ?? null);
        if (save) actions.saveAttachment(question.message.id, save);
        if (none) info(none);
      },
      submit: () => {
        const chosen =
          question?.kind === 'attachment' && question.typed
            ? question.attachments[Number(question.typed) - 1]
            : undefined;
        if (question?.kind !== 'attachment' || !chosen) return cancel();
        setQuestion(null);
        actions.saveAttachment(question.message.id, chosen);
      },
      no: cancel,
    },
    { isActive: input.active && input.screen === 'attachment' },
  );

  const answer = (choice: ConflictChoice) => {
    setQuestion(null);
    if (question?.kind === 'overwrite') actions.answerConflict(question, choice);
  };
  useKeys(
    'overwrite',
    { overwrite: () => answer('overwrite'), keepBoth: () => answer('keep'), no: () => answer('cancel') },
    { isActive: input.active && input.screen === 'overwrite' },
  );

  return (message, attachments) => {
    if (attachments.length === 1) return actions.saveAttachment(message.id, attachments[0]!);
    setQuestion({ kind: 'attachment', message, attachments });
  };
}
