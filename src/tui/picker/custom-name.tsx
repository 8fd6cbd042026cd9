/** The picker's custom-name input: the name typed, the domain after it, and whether it will do (checked as typed). */
import { Box, Text } from 'ink';
import type { Domain } from '../../model/mail-types';
import { fitToWidth } from '../../text/text-width';
import { TextInput } from '../widgets/text-input';
import { useTheme } from '../widgets/theme';
import { customNameWords } from '../wording/custom-name-text';

export interface CustomNameProps {
  value: string;
  domain: Domain;
  /** The provider's name (said where it picks the domain itself). */
  who: string;
  /** Why the name will not do, or null. */
  problem: string | null;
  /** The service said the name is in use. */
  taken: boolean;
  creating: boolean;
  focus: boolean;
  columns: number;
  onTyped: (typed: string) => void;
  onSubmit: (typed: string) => void;
}

export function CustomName(props: CustomNameProps) {
  const theme = useTheme();
  const { problem, taken, columns } = props;
  const words = customNameWords(props.value, props.domain, props.who, { problem, taken });
  return (
    <Box flexDirection="column">
      <Text>{words.title}</Text>
      <Box>
        <TextInput
          value={props.value}
          focus={props.focus}
          placeholder="your-name"
          onChange={props.onTyped}
          onSubmit={props.onSubmit}
        />
        <Text color={theme.color('muted')}>{words.at}</Text>
      </Box>
      <Text wrap="truncate" color={problem || taken ? theme.color('error') : theme.color('ok')}>
        {fitToWidth(props.creating ? 'Creating the address…' : words.verdict, columns)}
      </Text>
    </Box>
  );
}
