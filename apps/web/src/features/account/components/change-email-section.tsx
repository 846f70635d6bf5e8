import { type ChangeEmailRequest, ChangeEmailRequestSchema } from '@kegel/contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';

import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { useChangeEmail } from '../api';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import styles from './settings.module.css';

/** The email section of Account Settings: the address, and a form behind 'Change Email'. */
export function ChangeEmailSection({ currentEmail }: { currentEmail: string }): React.JSX.Element {
  return (
    <EditableSection
      id="email-section"
      title="Email"
      summary={currentEmail}
      openLabel="Change Email"
      doneNote={
        <>
          <MessageSentIcon /> Please check your inbox to confirm new email.
        </>
      }
    >
      {(controls) => <ChangeEmailForm {...controls} />}
    </EditableSection>
  );
}

function ChangeEmailForm({ close, finish }: SectionControls): React.JSX.Element {
  const form = useForm<ChangeEmailRequest>({
    resolver: zodResolver(ChangeEmailRequestSchema),
    defaultValues: { newEmail: '', password: '' },
  });
  const { errors } = form.formState;
  const changeEmail = useChangeEmail();

  const onSubmit = form.handleSubmit((values) => {
    changeEmail.mutate(values, { onSuccess: finish });
  });

  return (
    <form className={styles.form} onSubmit={onSubmit} noValidate aria-label="Change email">
      <TextInput
        label="New email"
        type="email"
        autoComplete="email"
        inputMode="email"
        error={errors.newEmail?.message}
        {...form.register('newEmail')}
      />
      <PasswordInput
        label="Current password"
        autoComplete="current-password"
        error={errors.password?.message}
        {...form.register('password')}
      />
      <FormActions isSubmitting={changeEmail.isPending} onCancel={close} />
    </form>
  );
}
