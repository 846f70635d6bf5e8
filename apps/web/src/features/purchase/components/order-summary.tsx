import type { Plan } from '@kegel/contract';

import { formatUsd } from '../../../shared/format/money';
import { GuaranteeIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { billingPeriodLabel } from '../plan-terms';
import styles from './purchase.module.css';

/** Plan name, price, order total, billing period, and the 30-day money-back promise. */
export function OrderSummary({ plan }: { plan: Plan | undefined }): React.JSX.Element {
  const period = plan ? billingPeriodLabel(plan.days) : '';
  // Until a plan is chosen, the same rows with their values still loading (the preselected plan
  // has a billing period), so the summary keeps its size and its rows when the plan arrives.
  const rows = [
    { label: 'Plan', value: plan && `Premium — ${plan.name}` },
    { label: 'Price', value: plan && formatUsd(plan.price) },
    ...(!plan || period ? [{ label: 'Billing period', value: plan && period }] : []),
  ];
  return (
    <section className={styles.summary} aria-labelledby="order-summary-title">
      <h2 className={styles.summaryTitle} id="order-summary-title">
        Order summary
      </h2>
      <dl className={styles.summaryList} aria-hidden={plan ? undefined : true}>
        {rows.map(({ label, value }) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd className={label === 'Billing period' ? styles.capitalised : undefined}>
              {value ?? <Skeleton className={styles.skeletonSummaryValue} />}
            </dd>
          </div>
        ))}
        <div className={styles.summaryTotal}>
          <dt>Order total</dt>
          <dd>
            {plan ? formatUsd(plan.price) : <Skeleton className={styles.skeletonSummaryTotal} />}
          </dd>
        </div>
      </dl>
      <p className={styles.summaryNote}>
        One payment in US dollars. Premium does not renew by itself: buy again to extend it.
      </p>
      <div className={styles.guarantee}>
        <GuaranteeIcon />
        <p>
          <strong>30-day money-back guarantee.</strong> Not for you? Write to us within 30 days and
          we refund the full price.
        </p>
      </div>
    </section>
  );
}
