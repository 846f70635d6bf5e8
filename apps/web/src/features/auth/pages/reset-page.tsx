import { Link } from 'react-router';

import { externalLinks, paths } from '../../../config/paths';
import { env } from '../../../config/env';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { RichText } from '../../../shared/i18n/rich-text';
import { Button } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { MessageSentIcon } from '../../../shared/ui/icons/icon-set';
import { EmailInput } from '../../../shared/ui/text-input';
import { useRequestPasswordReset } from '../api';
import { resetFormSchema } from '../form-schemas';
import { useAuthText } from '../text';
import styles from '../components/auth-form.module.css';

/** `/auth/reset`: the form, then 'Check Your Email Inbox!'. */
export function ResetPage(): React.JSX.Element {
  const text = useAuthText();
  const requestReset = useRequestPasswordReset();
  const { form, field } = useContractForm(resetFormSchema, { email: '' });

  const onSubmit = form.handleSubmit(({ email }) => requestReset.mutate(email));

  if (requestReset.isSuccess) {
    const sentTo = requestReset.variables;
    return (
      <AuthCard
        title={text('checkInboxTitle')}
        icon={<MessageSentIcon width={28} height={28} />}
        subtitle={
          <RichText
            texts={text}
            name="resetLinkSentSubtitle"
            values={{ email: sentTo }}
            components={{ email: <span className={styles.email} /> }}
          />
        }
      >
        <p className={`${styles.footer} ${styles.center}`}>
          <RichText
            texts={text}
            name="noEmailHelp"
            values={{ supportEmail: env.supportEmail }}
            components={{
              // RichText puts the message's words inside the link.
              // eslint-disable-next-line jsx-a11y/anchor-has-content
              link: <a href={externalLinks.supportEmail} />,
            }}
          />
        </p>
        <p className={styles.footer}>
          <Link to={paths.auth.login.getHref()}>{text('backToSignIn')}</Link>
        </p>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={text('resetTitle')} subtitle={text('resetSubtitle')}>
      <form className={styles.form} onSubmit={onSubmit} noValidate>
        <EmailInput label={text('email')} {...field('email')} />
        <Button type="submit" fullWidth disabled={requestReset.isPending}>
          {text('sendResetLink')}
        </Button>
      </form>
      <p className={styles.footer}>
        {text('rememberedIt')} <Link to={paths.auth.login.getHref()}>{text('signInLink')}</Link>
      </p>
    </AuthCard>
  );
}
