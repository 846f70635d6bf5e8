import { type RegisterForm, RegisterFormSchema } from '@kegel/contract';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { Link, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { PasswordInput } from '../../../shared/ui/password-input';
import { EmailInput } from '../../../shared/ui/text-input';
import { withProgressToast } from '../../../shared/ui/toasts';
import { register } from '../api';
import styles from '../components/auth-form.module.css';
import { SocialSignIn } from '../social/social-sign-in';

/** `/auth/register` (spec §2, §4): on success, off to login with the spec's message. */
export function RegisterPage(): React.JSX.Element {
  const navigate = useNavigate();
  const form = useForm<RegisterForm>({
    resolver: zodResolver(RegisterFormSchema),
    defaultValues: { email: '', password: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email, password }) => {
    // The confirmation is checked by the form and never sent (spec §5).
    const created = await withProgressToast(
      {
        pending: 'Creating account',
        success: 'Account has been created successfully! Log in to your account.',
      },
      () => register({ email, password }),
    ).catch(() => undefined);
    if (created) await navigate(paths.auth.login.getHref());
  });

  return (
    <AuthCard title="Create Account" subtitle="One account for the web and the app.">
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <EmailInput label="Email" error={errors.email?.message} {...form.register('email')} />
        <PasswordInput
          label="Password"
          autoComplete="new-password"
          error={errors.password?.message}
          {...form.register('password')}
        />
        <PasswordInput
          label="Confirm password"
          autoComplete="new-password"
          error={errors.confirmPassword?.message}
          {...form.register('confirmPassword')}
        />
        <Button type="submit" fullWidth disabled={isSubmitting}>
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
