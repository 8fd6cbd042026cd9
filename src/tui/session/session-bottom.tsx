/** The line above the footer when it is not the status: a question, or the filter input. */
import { Box, Text } from 'ink';
import { safeLine } from '../../text/safe-text';
import type { AttachmentInfo, MessageSummary } from '../../model/mail-types';
import { AskLines, confirmLines, statusLines } from '../widgets/chrome';
import { TextInput } from '../widgets/text-input';
import { subjectLabel } from '../wording/display-format';
import type { Screen } from '../keymap/keymap';
import type { SaveConflict } from './session-actions';
import type { StatusMessage } from '../wording/status-text';
import { linkChoice } from '../viewer/viewer-state';
import type { ProviderId } from '../../model/mail-types';
import { forgetLines, forgetScreen } from '../saved/forget-question';

/** A question the session asks: y/n (delete, leave, forget), which attachment to save, or whether to replace a file. */
export type Question =
  | { kind: 'delete'; message: MessageSummary }
  /** `lasts`: what happens to the address left, in its provider's terms (wording/expiry-text.ts). */
  | { kind: 'leave'; lasts: string }
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
  return [
    `: o overwrite · k keep both (${q.keepName}) · other key cancels`,
    ': o overwrite · k keep both · other key cancels',
    ': o overwrite · k keep both',
  ];
}

type AttachmentQuestion = Extract<Question, { kind: 'attachment' }>;

/**
 * A digit typed at "Save which attachment?": like link numbers, it saves one at once when no longer
 * number could follow ("2" of 12), else waits for another digit or Enter ("1" of 12).
 */
export function attachmentDigit(
  q: AttachmentQuestion,
  digit: string,
): { save?: AttachmentInfo; wait?: AttachmentQuestion; none?: string } {
  const count = q.attachments.length;
  const choice = linkChoice(q.typed ?? '', digit, count);
  if (choice.wait) return { wait: { ...q, typed: choice.wait } };
  const chosen = choice.pick !== undefined ? q.attachments[choice.pick - 1] : undefined;
  return chosen ? { save: chosen } : { none: `No attachment ${q.typed ?? ''}${digit}: this message has ${count}.` };
}

/** The question's lines at `columns`: wrapped, the answer keys whole (the session sizes its body by them). */
export function questionLines(question: Question, email: string, columns: number): string[] {
  switch (question.kind) {
    case 'delete':
      return confirmLines(`Delete "${subjectLabel(question.message.subject)}"?`, columns);
    case 'leave':
      return confirmLines(`Leave ${email} for a new address? ${question.lasts}`, columns);
    case 'forget':
      return forgetLines(email, question.provider, columns);
    case 'overwrite':
      return confirmLines(`${question.name} exists in ${question.where}`, columns, overwriteAnswers(question));
    case 'attachment': {
      const count = question.attachments.length;
      const text = question.typed
        ? `Attachment ${question.typed}… (another digit, or Enter)`
        : count > 9
          ? `Save which attachment? Number 1-${count} then Enter; any other key cancels`
          : `Save which attachment? 1-${count} (of ${count}), any other key cancels`;
      return statusLines(text, columns);
    }
  }
}

/** Rows above the footer: a question's lines, one for an input (filter, search), else the status's lines. */
export function bottomHeight(at: {
  question: Question | null;
  email: string;
  input: boolean;
  status: StatusMessage | null;
  columns: number;
}): number {
  if (at.question) return questionLines(at.question, at.email, at.columns).length;
  return at.input ? 1 : statusLines(at.status?.text ?? '', at.columns).length;
}

/** The question's words above the footer. */
export function QuestionLine({ question, email, columns }: { question: Question; email: string; columns: number }) {
  return <AskLines lines={questionLines(question, email, columns)} columns={columns} />;
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
