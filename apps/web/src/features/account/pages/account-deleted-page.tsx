import { useLayoutEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { Warning } from '../../../shared/ui/warning';
import { type AccountDeletedState, useForgetSession } from '../api';
import styles from './account-deleted-page.module.css';

/**
 * `/account/deleted`, where deleting the account ends. Arriving from the deletion, it forgets
 * the dead session (before the first paint, so the header never shows the old address), and
 * takes that instruction out of the history entry, so that coming back here later signs no one
 * out. It says what became of the account, and what the person may still have to do about an
 * App Store subscription, which a deletion does not cancel.
 */
const appStoreNote =
  'If you subscribed in the iPhone app, your App Store subscription continues until you cancel it: on your iPhone, open Settings → your name → Subscriptions.';

export function AccountDeletedPage(): React.JSX.Element {
  const location = useLocation();
  const navigate = useNavigate();
  const forgetSession = useForgetSession();
  const arrival = location.state as AccountDeletedState | null;
  const state = arrival ?? {};

  useLayoutEffect(() => {
    if (!arrival?.forgetSession) return;
    forgetSession();
    // The form was at the bottom of a long page: this one starts at its top, with its title.
    (document.scrollingElement ?? document.documentElement).scrollTop = 0;
    void navigate(paths.account.deleted.getHref(), {
      replace: true,
      state: { ...arrival, forgetSession: false } satisfies AccountDeletedState,
    });
  }, [arrival, forgetSession, navigate]);

  return (
    <AuthCard
      title="Your account has been deleted"
      icon={<CheckIcon width={28} height={28} />}
      subtitle={
        state.email ? (
          <>
            We sent a confirmation to <EmailAddress email={state.email} />.
          </>
        ) : (
          'We sent a confirmation to your email address.'
        )
      }
    >
      <ul className={styles.facts}>
        <li>Every device was signed out, this one too.</li>
        <li>
          Your email, sign-in methods and personal details are erased. Your purchase records are
          kept for accounting, without your name or email.
        </li>
        <li>You can create a new account with the same address whenever you like.</li>
      </ul>
      {state.keepsAppStoreSubscription ? (
        // He said he keeps one: the one thing left to do, set apart.
        <Warning>
          <p>{appStoreNote}</p>
        </Warning>
      ) : (
        <p className={styles.note}>{appStoreNote}</p>
      )}
      <ButtonLink to={paths.home.getHref()} fullWidth>
        Go to the home page
      </ButtonLink>
    </AuthCard>
  );
}

/** The address, allowed to wrap before its @ rather than inside a word on a narrow phone. */
function EmailAddress({ email }: { email: string }): React.JSX.Element {
  const at = email.lastIndexOf('@');
  return (
    <strong className={styles.email}>
      {at > 0 ? (
        <>
          {email.slice(0, at)}
          <wbr />
          {email.slice(at)}
        </>
      ) : (
        email
      )}
    </strong>
  );
}
