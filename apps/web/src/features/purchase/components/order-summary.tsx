import type { Plan } from '@kegel/contract';

import { formatUsd } from '../../../shared/format/money';
import { RichText } from '../../../shared/i18n/rich-text';
import { GuaranteeIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { billingPeriodLabel, planName } from '../plan-terms';
import { usePurchaseText } from '../text';
import styles from './purchase.module.css';

/** Plan name, price, order total, billing period, and the 30-day money-back promise. */
export function OrderSummary({ plan }: { plan: Plan | undefined }): React.JSX.Element {
  const text = usePurchaseText();
  const period = plan ? billingPeriodLabel(plan.days) : '';
  // Until a plan is chosen, the same rows with their values still loading (the preselected plan
  // has a billing period), so the summary keeps its size and its rows when the plan arrives.
  const rows = [
    {
      id: 'plan',
      label: text('summaryPlan'),
      value: plan && text('premiumPlanName', { name: planName(plan) }),
    },
    { id: 'price', label: text('summaryPrice'), value: plan && formatUsd(plan.price) },
    ...(!plan || period
      ? [{ id: 'period', label: text('summaryBillingPeriod'), value: plan && period }]
      : []),
  ];
  return (
    <section className={styles.summary} aria-labelledby="order-summary-title">
      <h2 className={styles.summaryTitle} id="order-summary-title">
        {text('orderSummary')}
      </h2>
      <dl className={styles.summaryList} aria-hidden={plan ? undefined : true}>
        {rows.map(({ id, label, value }) => (
          <div key={id}>
            <dt>{label}</dt>
            <dd className={id === 'period' ? styles.capitalised : undefined}>
              {value ?? <Skeleton className={styles.skeletonSummaryValue} />}
            </dd>
          </div>
        ))}
        <div className={styles.summaryTotal}>
          <dt>{text('orderTotal')}</dt>
          <dd>
            {plan ? formatUsd(plan.price) : <Skeleton className={styles.skeletonSummaryTotal} />}
          </dd>
        </div>
      </dl>
      <p className={styles.summaryNote}>{text('summaryNote')}</p>
      <div className={styles.guarantee}>
        <GuaranteeIcon />
        <p>
          <RichText texts={text} name="guarantee" components={{ strong: <strong /> }} />
        </p>
      </div>
    </section>
  );
}
