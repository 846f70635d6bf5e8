import { Link } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { PasswordInput } from '../../../shared/ui/password-input';
import { EmailInput } from '../../../shared/ui/text-input';
import { useLogin } from '../api';
import { loginFormSchema } from '../form-schemas';
import { useAuthText } from '../text';
import { useAfterFirstStep, useWaitingSignIn } from '../use-code-step';
import styles from '../components/auth-form.module.css';
import { TwoStepCodeStep } from '../components/two-step-code-step';
import { PasskeySignIn } from '../components/passkey-sign-in';
import { SocialSignIn } from '../social/social-sign-in';

/**
 * `/auth/login`: on success, back to the page in `r`, else to /dashboard. With two-step sign-in
 * on, the code step follows the password (or Google, or Apple) on the same address.
 */
export function LoginPage(): React.JSX.Element {
  const waitingSignIn = useWaitingSignIn();
  if (waitingSignIn) return <TwoStepCodeStep key={waitingSignIn} mfaToken={waitingSignIn} />;
  return <PasswordStep />;
}

function PasswordStep(): React.JSX.Element {
  const text = useAuthText();
  const login = useLogin();
  const afterFirstStep = useAfterFirstStep();
  const { form, field } = useContractForm(loginFormSchema, { email: '', password: '' });

  const onSubmit = form.handleSubmit((values) =>
    login.mutate(values, { onSuccess: afterFirstStep }),
  );

  return (
    <AuthCard title={text('signIn')} subtitle={text('signInSubtitle')}>
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        {/* "webauthn": the browser offers this site's passkeys in the field's autofill. */}
        <EmailInput label={text('email')} autoComplete="username webauthn" {...field('email')} />
        <PasswordInput
          label={text('password')}
          autoComplete="current-password"
          {...field('password')}
        />
        <div className={styles.row}>
          <Link to={paths.auth.reset.getHref()}>{text('forgotPassword')}</Link>
        </div>
        <Button type="submit" fullWidth disabled={login.isPending}>
          {text('signIn')}
        </Button>
        <PasskeySignIn />
      </form>
      <SocialSignIn />
      <p className={styles.footer}>
        {/* Two texts, not one with the link inside: RichText would bring Lingui's Trans into this
            page's first JavaScript, which is at the edge of its budget. */}
        {text('noAccountYet')}{' '}
        <Link to={paths.auth.register.getHref()}>{text('createAccountLink')}</Link>
      </p>
    </AuthCard>
  );
}
