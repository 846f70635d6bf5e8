import { useId } from 'react';

import styles from './purchase-history.module.css';

const APPLE_NOTE =
  'You have an Apple subscription activated and you can manage it in your personal AppStore account';

/**
 * The tooltip beside an Apple row: Apple subscriptions are managed in the App Store, not in
 * Stripe's portal. Shown on hover and on keyboard focus; screen readers get it as a description.
 */
export function AppleManagedNote(): React.JSX.Element {
  const tooltipId = useId();
  return (
    <span className={styles.tooltipAnchor}>
      <button type="button" className={styles.infoButton} aria-describedby={tooltipId}>
        <span aria-hidden="true">i</span>
        <span className="visually-hidden">How to manage this subscription</span>
      </button>
      <span role="tooltip" id={tooltipId} className={styles.tooltip}>
        {APPLE_NOTE}
      </span>
    </span>
  );
}
