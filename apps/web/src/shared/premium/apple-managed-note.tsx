import { useId } from 'react';

import styles from './purchase-history.module.css';
import { usePremiumText } from './text';

/**
 * The tooltip beside an Apple row: Apple subscriptions are managed in the App Store, not in
 * Stripe's portal. Shown on hover and on keyboard focus; screen readers get it as a description.
 */
export function AppleManagedNote(): React.JSX.Element {
  const text = usePremiumText();
  const tooltipId = useId();
  return (
    <span className={styles.tooltipAnchor}>
      <button type="button" className={styles.infoButton} aria-describedby={tooltipId}>
        {/* eslint-disable-next-line i18next/no-literal-string -- the info sign, not a word */}
        <span aria-hidden="true">i</span>
        <span className="visually-hidden">{text('appleNoteButton')}</span>
      </button>
      <span role="tooltip" id={tooltipId} className={styles.tooltip}>
        {text('appleNote')}
      </span>
    </span>
  );
}
