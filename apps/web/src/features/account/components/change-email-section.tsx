import { ChangeEmailRequestSchema } from '@kegel/contract';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { useProfile } from '../../../shared/session/session';
import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { PasswordInput } from '../../../shared/ui/password-input';
import { TextInput } from '../../../shared/ui/text-input';
import { useChangeEmail } from '../api';
import { useAccountText } from '../text';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';
import styles from './settings.module.css';

/** The email section of Account Settings: the address, and a form behind 'Change Email'. */
export function ChangeEmailSection({ currentEmail }: { currentEmail: string }): React.JSX.Element {
  const text = useAccountText();
  return (
    <EditableSection
      id="email-section"
      title={text('email.title')}
      summary={currentEmail}
      openLabel={text('email.change')}
      doneNote={
        <>
          <MessageSentIcon /> {text('email.checkInbox')}
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
  const text = useAccountText();

  const onSubmit = form.handleSubmit((values) => {
    changeEmail.mutate(values, { onSuccess: finish });
  });

  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('email.formLabel')}
    >
      <TextInput
        label={text('email.newEmail')}
        type="email"
        autoComplete="email"
        inputMode="email"
        {...field('newEmail')}
      />
      <PasswordInput
        label={text('form.currentPassword')}
        autoComplete="current-password"
        {...field('password')}
      />
      {isTwoStepOn ? <SecondFactorField {...field('code')} /> : null}
      <FormActions isSubmitting={changeEmail.isPending} onCancel={close} />
    </form>
  );
}
