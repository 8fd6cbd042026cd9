/** The line above the footer when it is not the status: a question, or the filter input. */
import { Box, Text } from 'ink';
import React from 'react';
import { safeLine } from '../../text/safe-text';
import type { AttachmentInfo, MessageSummary } from '../../model/mail-types';
import { fitToWidth } from '../../text/text-width';
import { ConfirmLine } from '../widgets/chrome';
import { TextInput } from '../widgets/text-input';
import { useTheme } from '../widgets/theme';
import { subjectLabel } from '../wording/display-format';
import type { Screen } from '../keymap/keymap';
import type { SaveConflict } from './session-actions';
import { linkChoice } from '../viewer/viewer-state';
import type { ProviderId } from '../../model/mail-types';
import { ForgetLine, forgetScreen } from '../saved/forget-question';

/** A question the session asks: y/n (delete, leave, forget), which attachment to save, or whether to replace a file. */
export type Question =
  | { kind: 'delete'; message: MessageSummary }
  | { kind: 'leave' }
  /** `provider`: where the address lives (a mail.tm account can also be deleted there). */
  | { kind: 'forget'; provider: ProviderId }
  | { kind: 'attachment'; message: MessageSummary; attachments: readonly AttachmentInfo[]; typed?: string }
  | SaveConflict;

/** The keymap screen that reads the answer to `question`. */
export function questionScreen(question: Question): Screen {
  if (question.kind === 'attachment' || question.kind === 'overwrite') return question.kind;
  if (question.kind === 'forget') return forgetScreen(question.provider);
  return 'confirm';
}

/** How "report.pdf exists" is answered, longest wording first: the line keeps the keys, cutting the question. */
export function overwriteAnswers(q: SaveConflict): string[] {
  return [`: o overwrite · k keep both (${q.keepName}) · other key cancels`, ': o overwrite · k keep both · other key cancels', ': o overwrite · k keep both'];
}

type AttachmentQuestion = Extract<Question, { kind: 'attachment' }>;

/**
 * A digit typed at "Save which attachment?": like link numbers, it saves one at once when no longer
 * number could follow ("2" of 12), else waits for another digit or Enter ("1" of 12).
 */
export function attachmentDigit(q: AttachmentQuestion, digit: string): { save?: AttachmentInfo; wait?: AttachmentQuestion; none?: string } {
  const count = q.attachments.length;
  const choice = linkChoice(q.typed ?? '', digit, count);
  if (choice.wait) return { wait: { ...q, typed: choice.wait } };
  const chosen = choice.pick !== undefined ? q.attachments[choice.pick - 1] : undefined;
  return chosen ? { save: chosen } : { none: `No attachment ${q.typed ?? ''}${digit}: this message has ${count}.` };
}

/** The question's words on the status line. */
export function QuestionLine({ question, email, columns }: { question: Question; email: string; columns: number }) {
  const theme = useTheme();
  switch (question.kind) {
    case 'delete':
      return <ConfirmLine question={`Delete "${subjectLabel(question.message.subject)}"?`} columns={columns} />;
    case 'leave':
      return <ConfirmLine question={`Leave ${email} for a new address? It keeps working until it expires.`} columns={columns} />;
    case 'forget':
      return <ForgetLine email={email} provider={question.provider} columns={columns} />;
    case 'overwrite':
      return <ConfirmLine question={`${question.name} exists in ${question.where}`} answers={overwriteAnswers(question)} columns={columns} />;
    case 'attachment': {
      const count = question.attachments.length;
      const text = question.typed
        ? `Attachment ${question.typed}… (another digit, or Enter)`
        : count > 9
          ? `Save which attachment? Number 1-${count} then Enter; any other key cancels`
          : `Save which attachment? 1-${count} (of ${count}), any other key cancels`;
      return (
        <Text wrap="truncate" bold color={theme.color('warn')}>
          {fitToWidth(text, columns)}
        </Text>
      );
    }
  }
}

/** The filter input ("/"), its text made terminal-safe as typed. */
export function FilterLine(props: { value: string; focus: boolean; onChange: (clean: string) => void }) {
  return (
    <Box>
      <Text>/</Text>
      <TextInput
        value={props.value}
        focus={props.focus}
        placeholder="filter by sender or subject"
        onChange={(text) => props.onChange(safeLine(text, 200))}
      />
    </Box>
  );
}
