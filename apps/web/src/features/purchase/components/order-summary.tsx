import type { Plan } from '@kegel/contract';

import { formatUsd } from '../../../shared/format/money';
import { GuaranteeIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { billingPeriodLabel } from '../plan-terms';
import styles from './purchase.module.css';

/** Plan name, price, order total, billing period, and the 30-day money-back promise. */
export function OrderSummary({ plan }: { plan: Plan | undefined }): React.JSX.Element {
  const period = plan ? billingPeriodLabel(plan.days) : '';
  return (
    <section className={styles.summary} aria-labelledby="order-summary-title">
      <h2 className={styles.summaryTitle} id="order-summary-title">
        Order summary
      </h2>
      {plan ? (
        <dl className={styles.summaryList}>
          <div>
            <dt>Plan</dt>
            <dd>Premium — {plan.name}</dd>
          </div>
          <div>
            <dt>Price</dt>
            <dd>{formatUsd(plan.price)}</dd>
          </div>
          {period ? (
            <div>
              <dt>Billing period</dt>
              <dd className={styles.capitalised}>{period}</dd>
            </div>
          ) : null}
          <div className={styles.summaryTotal}>
            <dt>Order total</dt>
            <dd>{formatUsd(plan.price)}</dd>
          </div>
        </dl>
      ) : (
        <div className={styles.summaryList} aria-hidden="true">
          <Skeleton height={18} />
          <Skeleton height={18} />
          <Skeleton height={24} />
        </div>
      )}
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
