import type { Plan } from '@kegel/contract';
import { type InputHTMLAttributes, memo, useId } from 'react';

import { formatUsd } from '../../../shared/format/money';
import { RichText } from '../../../shared/i18n/rich-text';
import { CheckIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { billingPeriodLabel, planName, pricePerWeek } from '../plan-terms';
import { usePurchaseText } from '../text';
import styles from './purchase.module.css';

/**
 * One plan as a radio card (step 1 of the checkout): name, days, price per week, total and
 * billing period. A radio group keeps arrow keys and screen readers working as they expect.
 */
export const PlanCard = memo(function PlanCard({
  plan,
  isMostPopular,
  inputProps,
}: {
  plan: Plan;
  isMostPopular: boolean;
  inputProps: InputHTMLAttributes<HTMLInputElement>;
}): React.JSX.Element {
  const text = usePurchaseText();
  const period = billingPeriodLabel(plan.days);
  const total = { price: formatUsd(plan.price), days: plan.days, period };
  const id = useId();
  // The radio is named by the plan alone ("1 Week"); price and badge are read as its description.
  const describedBy = [isMostPopular ? `${id}-badge` : '', `${id}-price`, `${id}-total`]
    .filter(Boolean)
    .join(' ');
  return (
    <label className={styles.planCard}>
      <input
        type="radio"
        value={plan.id}
        className={styles.planRadio}
        aria-labelledby={`${id}-name`}
        aria-describedby={describedBy}
        {...inputProps}
      />
      <span className={styles.planCheck} aria-hidden="true">
        <CheckIcon width={14} height={14} />
      </span>
      <span className={styles.planHead}>
        <span className={styles.planName} id={`${id}-name`}>
          {planName(plan)}
        </span>
        {isMostPopular ? (
          <span className={styles.badge} id={`${id}-badge`}>
            {text('mostPopular')}
          </span>
        ) : null}
      </span>
      <span className={styles.planPerWeek} id={`${id}-price`}>
        <RichText
          texts={text}
          name="pricePerWeek"
          components={{ price: <strong /> }}
          values={{ price: formatUsd(pricePerWeek(plan)) }}
        />
      </span>
      <span className={styles.planTotal} id={`${id}-total`}>
        {period ? text('planTotalBilled', total) : text('planTotal', total)}
      </span>
    </label>
  );
});

export function PlanCardSkeleton(): React.JSX.Element {
  return (
    <div className={`${styles.planCard} ${styles.planCardLoading}`} aria-hidden="true">
      <Skeleton className={styles.skeletonPlanName} />
      <Skeleton className={styles.skeletonPlanPrice} />
      <Skeleton className={styles.skeletonPlanTotal} />
    </div>
  );
}
