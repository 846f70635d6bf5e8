import type { Profile } from '@kegel/contract';
import { useState } from 'react';

import { paths } from '../../config/paths';
import { formatLongDate } from '../format/dates';
import { ButtonLink } from '../ui/button';
import { CrownIcon } from '../ui/icons/icon-set';
import styles from './premium-status.module.css';
import { usePremiumText } from './text';

/**
 * Whether premium is active and until when; Extend goes to /purchase, adding to the end date.
 * `readOnly`: as the support desk shows it when viewing as the member, without the button.
 */
export function PremiumStatus({
  profile,
  readOnly = false,
}: {
  profile: Pick<Profile, 'subscriptionEndDate'>;
  readOnly?: boolean;
}): React.JSX.Element {
  const text = usePremiumText();
  // Read once per mount: the page does not flip while someone is looking at it.
  const [now] = useState(() => Date.now());
  const endsAt = profile.subscriptionEndDate;
  const isActive = endsAt !== null && new Date(endsAt).getTime() > now;
  return (
    <div className={`${styles.status} ${isActive ? styles.active : ''}`}>
      <div className={styles.text}>
        <span className={styles.icon}>
          <CrownIcon />
        </span>
        <div>
          <p className={styles.label}>{text('statusLabel')}</p>
          <p className={styles.message}>
            {isActive
              ? text('activeUntil', { date: formatLongDate(endsAt) })
              : text('noActiveSubscriptions')}
          </p>
        </div>
      </div>
      {readOnly ? null : (
        <ButtonLink to={paths.purchase.root.getHref()} size={48}>
          {isActive ? text('extendPremium') : text('buyPremium')}
        </ButtonLink>
      )}
    </div>
  );
}
