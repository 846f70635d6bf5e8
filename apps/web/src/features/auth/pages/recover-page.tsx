import { newPasswordServerMessages, RecoverPasswordFormSchema } from '@kegel/contract';
import { useEffect } from 'react';
import { Navigate, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon, KeyIcon } from '../../../shared/ui/icons/icon-set';
import { NewPasswordFields } from '../../../shared/ui/new-password-fields';
import { toasts } from '../../../shared/ui/toasts';
import { useConfirmPasswordReset } from '../api';
import styles from '../components/auth-form.module.css';

const INVALID_LINK = 'Failed to change password. Link is invalid.';

/** `/account/recover/new?email=…&code=…`: the emailed reset link lands here. */
export function RecoverPage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  // A "+" that arrived as a space (a mail client decoding the link) is a "+" again.
  const email = searchParams.get('email')?.replace(/ /g, '+');
  const code = searchParams.get('code');
  const isLinkComplete = Boolean(email && code);
  const { form, field, showOnField } = useContractForm(
    RecoverPasswordFormSchema,
    { newPassword: '', confirmPassword: '' },
    { serverMessages: { newPassword: newPasswordServerMessages } },
  );
  const confirmReset = useConfirmPasswordReset({ showOnField });

  useEffect(() => {
    if (!isLinkComplete) toasts.error(INVALID_LINK, { id: INVALID_LINK });
  }, [isLinkComplete]);

  if (!email || !code) return <Navigate to={paths.auth.reset.getHref()} replace />;

  const onSubmit = form.handleSubmit(({ newPassword }) =>
    confirmReset.mutate({ email, code, newPassword }),
  );

  if (confirmReset.isSuccess) {
    return (
      <AuthCard
        title="Password Changed!"
        icon={<CheckIcon width={28} height={28} />}
        subtitle="Your password has been changed. Sign in with your new password."
      >
        <ButtonLink to={paths.auth.login.getHref()} fullWidth>
          Sign In Now
        </ButtonLink>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Choose a New Password"
      icon={<KeyIcon width={28} height={28} />}
      subtitle={
        <>
          For <span className={styles.email}>{email}</span>
        </>
      }
    >
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <NewPasswordFields field={field} />
        <Button type="submit" fullWidth disabled={confirmReset.isPending}>
          Change Password
        </Button>
      </form>
    </AuthCard>
  );
}
