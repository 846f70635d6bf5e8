import type { FieldErrors, FieldValues, Path, UseFormRegister } from 'react-hook-form';

import { PasswordInput } from './password-input';

interface NewPasswordForm extends FieldValues {
  newPassword: string;
  confirmPassword: string;
}

/** 'New password' and 'Repeat new password', the pair of the recover and change-password forms. */
export function NewPasswordFields<Form extends NewPasswordForm>({
  register,
  errors,
}: {
  register: UseFormRegister<Form>;
  errors: FieldErrors<NewPasswordForm>;
}): React.JSX.Element {
  return (
    <>
      <PasswordInput
        label="New password"
        autoComplete="new-password"
        error={errors.newPassword?.message}
        {...register('newPassword' as Path<Form>)}
      />
      <PasswordInput
        label="Repeat new password"
        autoComplete="new-password"
        error={errors.confirmPassword?.message}
        {...register('confirmPassword' as Path<Form>)}
      />
    </>
  );
}
