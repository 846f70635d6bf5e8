import { newPasswordServerMessages, RegisterFormSchema } from '@kegel/contract';
import { Link, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { PasswordInput } from '../../../shared/ui/password-input';
import { EmailInput } from '../../../shared/ui/text-input';
import { useRegister } from '../api';
import styles from '../components/auth-form.module.css';
import { SocialSignIn } from '../social/social-sign-in';

/** `/auth/register`: on success, off to login, where the success toast asks to sign in. */
export function RegisterPage(): React.JSX.Element {
  const navigate = useNavigate();
  const { form, field, showOnField } = useContractForm(
    RegisterFormSchema,
    { email: '', password: '', confirmPassword: '' },
    { serverMessages: { password: newPasswordServerMessages } },
  );
  const register = useRegister({ showOnField });

  const onSubmit = form.handleSubmit(({ email, password }) => {
    // The confirmation is checked by the form and never sent.
    register.mutate(
      { email, password },
      { onSuccess: () => void navigate(paths.auth.login.getHref()) },
    );
  });

  return (
    <AuthCard title="Create Account" subtitle="One account for the web and the app.">
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <EmailInput label="Email" {...field('email')} />
        <PasswordInput label="Password" autoComplete="new-password" {...field('password')} />
        <PasswordInput
          label="Confirm password"
          autoComplete="new-password"
          {...field('confirmPassword')}
        />
        <Button type="submit" fullWidth disabled={register.isPending}>
          Create Account
        </Button>
      </form>
      <SocialSignIn />
      <p className={styles.footer}>
        Already have an account? <Link to={paths.auth.login.getHref()}>Sign in</Link>
      </p>
    </AuthCard>
  );
}
