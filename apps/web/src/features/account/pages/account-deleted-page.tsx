import { useLayoutEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';

import { paths } from '../../../config/paths';
import { RichText } from '../../../shared/i18n/rich-text';
import { ButtonLink } from '../../../shared/ui/button';
import { AuthCard } from '../../../shared/ui/card';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { Warning } from '../../../shared/ui/warning';
import { type AccountDeletedState, useForgetSession } from '../email-links-api';
import { useEmailLinksText } from '../email-links-text';
import styles from './account-deleted-page.module.css';

/**
 * `/account/deleted`, where deleting the account ends. Arriving from the deletion, it forgets
 * the dead session (before the first paint, so the header never shows the old address), and
 * takes that instruction out of the history entry, so that coming back here later signs no one
 * out. It says what became of the account, and what the person may still have to do about an
 * App Store subscription, which a deletion does not cancel.
 */
export function AccountDeletedPage(): React.JSX.Element {
  const location = useLocation();
  const navigate = useNavigate();
  const forgetSession = useForgetSession();
  const arrival = location.state as AccountDeletedState | null;
  const state = arrival ?? {};
  const text = useEmailLinksText();
  const appStoreNote = text('deleted.appStoreNote');

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
      title={text('deleted.title')}
      icon={<CheckIcon width={28} height={28} />}
      subtitle={
        state.email ? (
          <RichText
            texts={text}
            name="deleted.sentTo"
            values={{ email: state.email }}
            components={{ email: <EmailAddress email={state.email} /> }}
          />
        ) : (
          text('deleted.sentToYou')
        )
      }
    >
      <ul className={styles.facts}>
        <li>{text('deleted.signedOut')}</li>
        <li>{text('deleted.erased')}</li>
        <li>{text('deleted.newAccount')}</li>
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
        {text('deleted.goHome')}
      </ButtonLink>
    </AuthCard>
  );
}

/**
 * The address, allowed to wrap before its @ rather than inside a word on a narrow phone. Drawn
 * from `email`: the words RichText gives it (the same address) are not used.
 */
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
