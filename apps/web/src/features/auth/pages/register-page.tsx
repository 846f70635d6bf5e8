import { newPasswordServerMessages } from '@kegel/contract';
import { Link, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { PasswordInput } from '../../../shared/ui/password-input';
import { EmailInput } from '../../../shared/ui/text-input';
import { useRegister } from '../api';
import { registerFormSchema } from '../form-schemas';
import { useAuthText } from '../text';
import styles from '../components/auth-form.module.css';
import { SocialSignIn } from '../social/social-sign-in';

/** `/auth/register`: on success, off to login, where the success toast asks to sign in. */
export function RegisterPage(): React.JSX.Element {
  const text = useAuthText();
  const navigate = useNavigate();
  const { form, field, showOnField } = useContractForm(
    registerFormSchema,
    { email: '', password: '', confirmPassword: '' },
    { serverMessages: { password: newPasswordServerMessages } },
  );
  const register = useRegister({ showOnField });

  const onSubmit = form.handleSubmit(({ email, password }) => {
    // The sign-in page this leads to, fetched while the account is made: until its code has
    // arrived, the address already reads /auth/login but this form stays on screen (the router
    // changes pages in a transition), and on a slow network a person could start typing here.
    void import('./login-page').catch(() => undefined);
    // The confirmation is checked by the form and never sent.
    register.mutate(
      { email, password },
      { onSuccess: () => void navigate(paths.auth.login.getHref()) },
    );
  });

  return (
    <AuthCard title={text('createAccount')} subtitle={text('registerSubtitle')}>
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <EmailInput label={text('email')} {...field('email')} />
        <PasswordInput
          label={text('password')}
          autoComplete="new-password"
          {...field('password')}
        />
        <PasswordInput
          label={text('confirmPassword')}
          autoComplete="new-password"
          {...field('confirmPassword')}
        />
        <Button type="submit" fullWidth disabled={register.isPending}>
          {text('createAccount')}
        </Button>
      </form>
      <SocialSignIn />
      <p className={styles.footer}>
        {text('alreadyHaveAccount')}{' '}
        <Link to={paths.auth.login.getHref()}>{text('signInLink')}</Link>
      </p>
    </AuthCard>
  );
}
