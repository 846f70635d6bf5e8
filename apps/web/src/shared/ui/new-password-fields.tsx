import type { FieldBinding } from '../forms/use-contract-form';
import { PasswordInput } from './password-input';

/** 'New password' and 'Repeat new password', the pair of the recover and change-password forms. */
export function NewPasswordFields({
  field,
}: {
  field: (name: 'newPassword' | 'confirmPassword') => FieldBinding;
}): React.JSX.Element {
  return (
    <>
      <PasswordInput label="New password" autoComplete="new-password" {...field('newPassword')} />
      <PasswordInput
        label="Repeat new password"
        autoComplete="new-password"
        {...field('confirmPassword')}
      />
    </>
  );
}
