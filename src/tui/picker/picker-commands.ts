/**
 * What the picker offers and what its choices do: the saved addresses to resume and the provider's
 * choices, a choice carried out (resume, open the custom-name input, create), and the custom name checked
 * and submitted. picker-screen.tsx renders them and maps keys to them.
 */
import { PROVIDER_INFO, type ProviderRef } from '../../client/providers';
import type { SavedSession } from '../../state/saved-sessions';
import type { LocalServiceInfo } from '../shell/shell-types';
import type { CurrentAddress } from '../saved/switch-screen';
import { isCurrent } from '../saved/switch-screen';
import { providerName } from '../wording/provider-text';
import { pickerItems, savedItems, sessionOptions, type PickerChoice } from './picker-items';
import { startKey } from './picker-start';
import type { PickerAction, PickerMode } from './picker-state';
import { normalizePrefix, prefixProblem } from './prefix-feedback';
import type { PickerHandle } from './use-picker';

/** What of the picker's props its choices read (PickerScreenProps). */
export interface PickerChoiceProps {
  where: ProviderRef;
  local?: LocalServiceInfo;
  saved?: readonly SavedSession[];
  current?: CurrentAddress | null;
  onResume?: (session: SavedSession) => void;
}

/** The saved addresses first, as the docs say, then the provider's choices; `start`: where the highlight begins. */
export function pickerChoices(props: PickerChoiceProps, picker: PickerHandle, now: number) {
  // The current address is not offered: Esc goes back to it.
  const here = providerName(props.where);
  const resumable = savedItems(
    (props.saved ?? []).filter((s) => !isCurrent(s, props.current ?? null)),
    now,
    here,
  );
  const offered = picker.domains.status === 'ready' ? pickerItems(picker.domains.list, providerName(props.where)) : [];
  // Opened by `n` the highlight starts on a new choice.
  const items = [...resumable, ...offered];
  const itemsKey = items.map((item) => item.key).join('\n');
  const start = startKey(resumable, offered, Boolean(props.current));
  return { resumable, items, itemsKey, start };
}

/** A choice carried out: a saved address resumed, the custom-name input opened, or an address created. */
export function chooseCommand(
  props: PickerChoiceProps,
  picker: PickerHandle,
  dispatch: (action: PickerAction) => void,
): (choice: PickerChoice) => void {
  return (choice) => {
    dispatch({ type: 'chose' });
    if (choice.kind === 'saved') {
      props.onResume?.(choice.session);
    } else if (choice.kind === 'custom') {
      picker.clearError();
      dispatch({ type: 'custom', domain: choice.domain });
    } else {
      picker.create(sessionOptions(choice));
    }
  };
}

/** The custom name's check (the provider's own name rules where it has them, else the interface's) and its submit. */
export function customNameCommands(
  props: PickerChoiceProps,
  picker: PickerHandle,
  dispatch: (action: PickerAction) => void,
  custom: Extract<PickerMode, { kind: 'custom' }> | null,
) {
  const info = props.local ? undefined : PROVIDER_INFO[props.where.provider];
  const problemOf = (value: string) => prefixProblem(value, info?.limits.names, info?.label);
  // The input passes what was typed: keys that came in the same burst as Enter may not be rendered yet.
  const submitCustom = (typed: string) => {
    const value = normalizePrefix(typed);
    if (!custom || problemOf(value) !== null) return;
    picker.create(sessionOptions({ kind: 'custom', domain: custom.domain }, value), () => dispatch({ type: 'taken' }));
  };
  return { problemOf, submitCustom };
}
