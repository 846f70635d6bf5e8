import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { externalLinks, paths } from '../../../config/paths';
import { formatSessionDate } from '../../../shared/format/dates';
import { formatUsd } from '../../../shared/format/money';
import { ButtonLink, ExternalButtonLink } from '../../../shared/ui/button';
import { CheckIcon, DownloadIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { purchaseQueries } from '../api';
import styles from '../components/purchase.module.css';
import { durationName } from '../plan-terms';
import { usePremiumRefreshAfterPurchase } from '../use-premium-refresh-after-purchase';

/**
 * The fixed provider text of the details. The original product named a reseller; here Stripe processes the
 * payment for us, and the text says so rather than call it a reseller.
 */
const PROVIDER_TEXT = 'Stripe, Inc. (payment processor)';

/**
 * `/purchase/complete?registered=…&email=…&session=…`, where Stripe's checkout returns. A known
 * email reads that premium is active; a new one, that an account was made and its password
 * emailed.
 */
export function PurchaseCompletePage(): React.JSX.Element {
  const [searchParams] = useSearchParams();
  const isRegistered = searchParams.get('registered') === 'true';
  const email = searchParams.get('email') ?? '';
  const sessionId = searchParams.get('session') ?? '';
  // The session is fetched only when the parameter is present.
  const session = useQuery({ ...purchaseQueries.checkoutSession(sessionId), enabled: !!sessionId });
  usePremiumRefreshAfterPurchase(isRegistered);

  const packageName = session.data ? `Premium — ${durationName(session.data.durationDays)}` : '';

  return (
    <div className={styles.completePage}>
      <section className={styles.completeCard} aria-labelledby="complete-title">
        <span className={styles.completeIcon}>
          <CheckIcon width={28} height={28} />
        </span>
        <h1 className={styles.completeTitle} id="complete-title">
          Purchase completed!
        </h1>
        {isRegistered ? (
          <p className={styles.completeText}>
            Thank you for your purchase!{' '}
            {session.data
              ? `Your ${packageName} subscription is now active.`
              : 'Your Premium subscription is now active.'}
          </p>
        ) : (
          <p className={styles.completeText}>
            Thank you for your purchase! We have created your account and sent a new password to the
            email you gave at purchase: <strong className={styles.email}>{email}</strong>. Use it to
            sign in to your dashboard.
          </p>
        )}

        {sessionId ? (
          <dl className={styles.details} aria-busy={session.isPending}>
            {session.isError ? (
              <p className={styles.loadError} role="alert">
                The payment details could not be loaded. {session.error.message}
              </p>
            ) : (
              <>
                <DetailRow label="Subscription ID" value={session.data?.id} />
                <DetailRow label="Package" value={packageName || undefined} />
                <DetailRow label="Provider" value={session.data ? PROVIDER_TEXT : undefined} />
                <DetailRow
                  label="Date"
                  value={session.data ? formatSessionDate(session.data.beginsAt) : undefined}
                />
                <DetailRow label="Payment method" value={session.data ? 'Card' : undefined} />
                <DetailRow
                  label="Amount"
                  value={session.data ? formatUsd(session.data.price) : undefined}
                />
              </>
            )}
          </dl>
        ) : null}

        <div className={styles.completeActions}>
          <ExternalButtonLink variant="outlined" href={externalLinks.appStore}>
            <DownloadIcon /> Download the App
          </ExternalButtonLink>
          {isRegistered ? (
            <ButtonLink to={paths.dashboard.root.getHref()}>Enter Dashboard</ButtonLink>
          ) : (
            <ButtonLink to={paths.auth.login.getHref()}>Sign in to Dashboard</ButtonLink>
          )}
        </div>
      </section>
    </div>
  );
}

function DetailRow({ label, value }: { label: string; value: string | undefined }) {
  return (
    <div className={styles.detailRow}>
      <dt>{label}</dt>
      <dd>{value ?? <Skeleton className={styles.skeletonDetail} />}</dd>
    </div>
  );
}
