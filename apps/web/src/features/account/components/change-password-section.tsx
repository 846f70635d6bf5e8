import { ChangePasswordFormSchema, newPasswordServerMessages } from '@kegel/contract';

import { useProfile } from '../../../shared/session/session';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { NewPasswordFields } from '../../../shared/ui/new-password-fields';
import { PasswordInput } from '../../../shared/ui/password-input';
import { useChangePassword } from '../api';
import { useAccountText } from '../text';
import { EditableSection, FormActions, type SectionControls } from './editable-section';
import styles from './settings.module.css';
import { SecondFactorField, secondFactorServerMessages } from './second-factor-field';

/** The Change Password section of Account Settings. */
export function ChangePasswordSection(): React.JSX.Element {
  const text = useAccountText();
  return (
    <EditableSection
      id="password-section"
      title={text('password.change')}
      summary={text('password.summary')}
      openLabel={text('password.change')}
      doneNote={
        <>
          <CheckIcon /> {text('password.done')}
        </>
      }
    >
      {(controls) => <ChangePasswordFormFields {...controls} />}
    </EditableSection>
  );
}

function ChangePasswordFormFields({ close, finish }: SectionControls): React.JSX.Element {
  const { form, field, showOnField } = useContractForm(
    ChangePasswordFormSchema,
    { oldPassword: '', newPassword: '', confirmPassword: '' },
    {
      serverMessages: {
        newPassword: newPasswordServerMessages,
        code: secondFactorServerMessages,
      },
    },
  );
  const changePassword = useChangePassword({ showOnField });
  const isTwoStepOn = useProfile().data?.twoStepEnabled === true;
  const text = useAccountText();

  // The confirmation is checked by the form and never sent.
  const onSubmit = form.handleSubmit(({ oldPassword, newPassword, code }) => {
    changePassword.mutate({ oldPassword, newPassword, code }, { onSuccess: finish });
  });

  return (
    <form
      className={styles.form}
      onSubmit={onSubmit}
      noValidate
      aria-label={text('password.formLabel')}
    >
      <PasswordInput
        label={text('form.currentPassword')}
        autoComplete="current-password"
        {...field('oldPassword')}
      />
      <NewPasswordFields field={field} />
      {isTwoStepOn ? <SecondFactorField {...field('code')} /> : null}
      <FormActions isSubmitting={changePassword.isPending} onCancel={close} />
    </form>
  );
}
