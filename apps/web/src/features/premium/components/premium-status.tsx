import type { Profile } from '@kegel/contract';
import { useState } from 'react';

import { paths } from '../../../config/paths';
import { formatLongDate } from '../../../shared/format/dates';
import { ButtonLink } from '../../../shared/ui/button';
import styles from './premium-status.module.css';
import { CrownIcon } from '../../../shared/ui/icons/icon-set';

/** Whether premium is active and until when; Extend goes to /purchase, adding to the end date. */
export function PremiumStatus({ profile }: { profile: Profile }): React.JSX.Element {
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
          <p className={styles.label}>Premium</p>
          <p className={styles.message}>
            {isActive
              ? `Your premium plan is active and will expire on ${formatLongDate(endsAt)}`
              : "You don't have active subscriptions yet"}
          </p>
        </div>
      </div>
      <ButtonLink to={paths.purchase.root.getHref()} size={48}>
        {isActive ? 'Extend Premium' : 'Buy Premium'}
      </ButtonLink>
    </div>
  );
}
