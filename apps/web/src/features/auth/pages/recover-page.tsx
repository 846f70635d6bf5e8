import { newPasswordServerMessages } from '@kegel/contract';
import { useEffect } from 'react';
import { Navigate, useSearchParams } from 'react-router';

import { paths } from '../../../config/paths';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { RichText } from '../../../shared/i18n/rich-text';
import { Button, ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon, KeyIcon } from '../../../shared/ui/icons/icon-set';
import { NewPasswordFields } from '../../../shared/ui/new-password-fields';
import { toasts } from '../../../shared/ui/toasts';
import { useConfirmPasswordReset } from '../api';
import { recoverFormSchema } from '../form-schemas';
import { useAuthText } from '../text';
import styles from '../components/auth-form.module.css';

/** One toast however often the page draws without a complete link. */
const INCOMPLETE_LINK_TOAST = 'reset-link-incomplete';

/** `/account/recover/new?email=…&code=…`: the emailed reset link lands here. */
export function RecoverPage(): React.JSX.Element {
  const text = useAuthText();
  const [searchParams] = useSearchParams();
  // A "+" that arrived as a space (a mail client decoding the link) is a "+" again.
  const email = searchParams.get('email')?.replace(/ /g, '+');
  const code = searchParams.get('code');
  const isLinkComplete = Boolean(email && code);
  const { form, field, showOnField } = useContractForm(
    recoverFormSchema,
    { newPassword: '', confirmPassword: '' },
    { serverMessages: { newPassword: newPasswordServerMessages } },
  );
  const confirmReset = useConfirmPasswordReset({ showOnField });

  useEffect(() => {
    if (!isLinkComplete) toasts.error(text('resetLinkIncomplete'), { id: INCOMPLETE_LINK_TOAST });
  }, [isLinkComplete, text]);

  if (!email || !code) return <Navigate to={paths.auth.reset.getHref()} replace />;

  const onSubmit = form.handleSubmit(({ newPassword }) =>
    confirmReset.mutate({ email, code, newPassword }),
  );

  if (confirmReset.isSuccess) {
    return (
      <AuthCard
        title={text('passwordChangedTitle')}
        icon={<CheckIcon width={28} height={28} />}
        subtitle={text('passwordChangedSubtitle')}
      >
        <ButtonLink to={paths.auth.login.getHref()} fullWidth>
          {text('signInNow')}
        </ButtonLink>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={text('chooseNewPasswordTitle')}
      icon={<KeyIcon width={28} height={28} />}
      subtitle={
        <RichText
          texts={text}
          name="forEmail"
          values={{ email }}
          components={{ email: <span className={styles.email} /> }}
        />
      }
    >
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <NewPasswordFields field={field} />
        <Button type="submit" fullWidth disabled={confirmReset.isPending}>
          {text('changePassword')}
        </Button>
      </form>
    </AuthCard>
  );
}
