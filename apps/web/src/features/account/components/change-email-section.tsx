import { ChangeEmailRequestSchema } from '@kegel/contract';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { useProfile } from '../../../shared/session/session';
import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { useChangeEmail } from '../api';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';
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
  const { form, field, showOnField } = useContractForm(
    ChangeEmailRequestSchema,
    { newEmail: '', password: '' },
    { serverMessages: { code: secondFactorServerMessages } },
  );
  const changeEmail = useChangeEmail({ showOnField });
  const isTwoStepOn = useProfile().data?.twoStepEnabled === true;

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
        {...field('newEmail')}
      />
      <PasswordInput
        label="Current password"
        autoComplete="current-password"
        {...field('password')}
      />
      {isTwoStepOn ? <SecondFactorField {...field('code')} /> : null}
      <FormActions isSubmitting={changeEmail.isPending} onCancel={close} />
    </form>
  );
}
