import { Button } from '../../../shared/ui/button';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { useEmailPasswordLink } from '../api';
import styles from './settings.module.css';

/**
 * For an account made with Google or Apple: it has no password, so the email and password forms
 * (which ask for the current one) would only fail. A password is set through an emailed link
 * rather than here, so that a stolen session cannot quietly add a way in.
 */
export function SetPasswordSection({ email }: { email: string }): React.JSX.Element {
  const sendLink = useEmailPasswordLink();

  return (
    <section className={styles.section} aria-labelledby="set-password-title">
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id="set-password-title">
            Password
          </h2>
          <p className={styles.value}>
            You sign in with Google or Apple. Set a password to also sign in with your email, and to
            change your email here.
          </p>
        </div>
        <Button
          variant="outlined"
          size={44}
          onClick={() => sendLink.mutate(email)}
          disabled={sendLink.isPending}
        >
          Email me a link
        </Button>
      </div>
      {sendLink.isSuccess ? (
        <p className={styles.note} role="status">
          <CheckIcon /> We sent a link to {email} to set your password.
        </p>
      ) : null}
    </section>
  );
}
