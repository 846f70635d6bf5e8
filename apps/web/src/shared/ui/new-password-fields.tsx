import type { FieldBinding } from '../forms/use-contract-form';
import { PasswordInput } from './password-input';
import { useFormsText } from './text';

/** 'New password' and 'Repeat new password', the pair of the recover and change-password forms. */
export function NewPasswordFields({
  field,
}: {
  field: (name: 'newPassword' | 'confirmPassword') => FieldBinding;
}): React.JSX.Element {
  const text = useFormsText();
  return (
    <>
      <PasswordInput
        label={text('newPassword')}
        autoComplete="new-password"
        {...field('newPassword')}
      />
      <PasswordInput
        label={text('repeatNewPassword')}
        autoComplete="new-password"
        {...field('confirmPassword')}
      />
    </>
  );
}
