import { ResetPasswordRequestSchema } from '@kegel/contract';
import { Link } from 'react-router';

import { externalLinks, paths } from '../../../config/paths';
import { env } from '../../../config/env';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { EmailInput } from '../../../shared/ui/text-input';
import { useRequestPasswordReset } from '../api';
import styles from '../components/auth-form.module.css';

/** `/auth/reset`: the form, then 'Check Your Email Inbox!'. */
export function ResetPage(): React.JSX.Element {
  const requestReset = useRequestPasswordReset();
  const { form, field } = useContractForm(ResetPasswordRequestSchema, { email: '' });

  const onSubmit = form.handleSubmit(({ email }) => requestReset.mutate(email));

  if (requestReset.isSuccess) {
    const sentTo = requestReset.variables;
    return (
      <AuthCard
        title="Check Your Email Inbox!"
        icon={<MessageSentIcon width={28} height={28} />}
        subtitle={
          <>
            If an account exists for <span className={styles.email}>{sentTo}</span>, we have sent it
            a link to choose a new password. The link works for 60 minutes.
          </>
        }
      >
        <p className={`${styles.footer} ${styles.center}`}>
          No email after a few minutes? Check your spam folder or{' '}
          <a href={externalLinks.supportEmail}>contact support ({env.supportEmail})</a>.
        </p>
        <p className={styles.footer}>
          <Link to={paths.auth.login.getHref()}>Back to sign in</Link>
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Reset Password"
      subtitle="Enter the email of your account and we will send you a link to choose a new password."
    >
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <EmailInput label="Email" {...field('email')} />
        <Button type="submit" fullWidth disabled={requestReset.isPending}>
          Send Link to Email
        </Button>
      </form>
      <p className={styles.footer}>
        Remembered it? <Link to={paths.auth.login.getHref()}>Sign in</Link>
      </p>
    </AuthCard>
  );
}
