import { Button } from '../../../shared/ui/button';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { useEmailPasswordLink } from '../api';
import { useAccountText } from '../text';
import styles from './settings.module.css';

/**
 * For an account made with Google or Apple: it has no password, so the email and password forms
 * (which ask for the current one) would only fail. A password is set through an emailed link
 * rather than here, so that a stolen session cannot quietly add a way in.
 */
export function SetPasswordSection({ email }: { email: string }): React.JSX.Element {
  const sendLink = useEmailPasswordLink();
  const text = useAccountText();

  return (
    <section className={styles.section} aria-labelledby="set-password-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="set-password-title">
            {text('setPassword.title')}
          </h2>
          <p className={styles.value}>{text('setPassword.summary')}</p>
        </div>
        <Button
          variant="outlined"
          size={44}
          onClick={() => sendLink.mutate(email)}
          disabled={sendLink.isPending}
        >
          {text('setPassword.emailLink')}
        </Button>
      </div>
      {sendLink.isSuccess ? (
        <p className={styles.note} role="status">
          <CheckIcon /> {text('setPassword.sent', { email })}
        </p>
      ) : null}
    </section>
  );
}
