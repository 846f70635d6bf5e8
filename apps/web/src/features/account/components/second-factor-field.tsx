import { twoStepMessages } from '@kegel/contract';

import type { FieldBinding } from '../../../shared/forms/use-contract-form';
import { TextInput } from '../../../shared/ui/text-input';
import { useAccountText } from '../text';

/** The server's refusals that belong under the code field of a change of credentials. */
export const secondFactorServerMessages = [
  twoStepMessages.secondFactorNeeded,
  twoStepMessages.wrongSecondFactor,
] as const;

/**
 * The code a change of credentials asks for while two-step sign-in is on: from the
 * authenticator app, or one of the recovery codes.
 */
export function SecondFactorField(binding: FieldBinding): React.JSX.Element {
  const text = useAccountText();
  return (
    <TextInput
      label={text('secondFactor.label')}
      hint={text('secondFactor.hint')}
      autoComplete="one-time-code"
      autoCapitalize="none"
      spellCheck={false}
      {...binding}
    />
  );
}
