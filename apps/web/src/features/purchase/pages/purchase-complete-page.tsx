import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';

import { externalLinks, paths } from '../../../config/paths';
import { formatSessionDate } from '../../../shared/format/dates';
import { formatUsd } from '../../../shared/format/money';
import { RichText } from '../../../shared/i18n/rich-text';
import { ButtonLink, ExternalButtonLink } from '../../../shared/ui/button';
import { CheckIcon, DownloadIcon } from '../../../shared/ui/icons/icon-set';
import { Skeleton } from '../../../shared/ui/skeleton';
import { purchaseQueries } from '../api';
import styles from '../components/purchase.module.css';
import { durationName } from '../plan-terms';
import { usePurchaseText } from '../text';
import { usePremiumRefreshAfterPurchase } from '../use-premium-refresh-after-purchase';

/**
 * `/purchase/complete?registered=…&email=…&session=…`, where Stripe's checkout returns. A known
 * email reads that premium is active; a new one, that an account was made and its password
 * emailed.
 */
export function PurchaseCompletePage(): React.JSX.Element {
  const text = usePurchaseText();
  const [searchParams] = useSearchParams();
  const isRegistered = searchParams.get('registered') === 'true';
  const email = searchParams.get('email') ?? '';
  const sessionId = searchParams.get('session') ?? '';
  // The session is fetched only when the parameter is present.
  const session = useQuery({ ...purchaseQueries.checkoutSession(sessionId), enabled: !!sessionId });
  usePremiumRefreshAfterPurchase(isRegistered);

  const packageName = session.data
    ? text('premiumPlanName', { name: durationName(session.data.durationDays) })
    : '';

  return (
    <div className={styles.completePage}>
      <section className={styles.completeCard} aria-labelledby="complete-title">
        <span className={styles.completeIcon}>
          <CheckIcon width={28} height={28} />
        </span>
        <h1 className={styles.completeTitle} id="complete-title">
          {text('completeTitle')}
        </h1>
        {isRegistered ? (
          <p className={styles.completeText}>
            {session.data
              ? text('thanksActivePackage', { packageName })
              : text('thanksActivePremium')}
          </p>
        ) : (
          <p className={styles.completeText}>
            <RichText
              texts={text}
              name="thanksAccountCreated"
              components={{ email: <strong className={styles.email} /> }}
              values={{ email }}
            />
          </p>
        )}

        {sessionId ? (
          <dl className={styles.details} aria-busy={session.isPending}>
            {session.isError ? (
              <p className={styles.loadError} role="alert">
                {text('detailsLoadError', { message: session.error.message })}
              </p>
            ) : (
              <>
                <DetailRow label={text('detailSubscriptionId')} value={session.data?.id} />
                <DetailRow label={text('detailPackage')} value={packageName || undefined} />
                {/* The original product named a reseller; here Stripe processes the payment for
                    us, and the text says so rather than call it a reseller. */}
                <DetailRow
                  label={text('detailProvider')}
                  value={session.data ? text('detailProviderStripe') : undefined}
                />
                <DetailRow
                  label={text('detailDate')}
                  value={session.data ? formatSessionDate(session.data.beginsAt) : undefined}
                />
                <DetailRow
                  label={text('detailPaymentMethod')}
                  value={session.data ? text('detailCard') : undefined}
                />
                <DetailRow
                  label={text('detailAmount')}
                  value={session.data ? formatUsd(session.data.price) : undefined}
                />
              </>
            )}
          </dl>
        ) : null}

        <div className={styles.completeActions}>
          <ExternalButtonLink variant="outlined" href={externalLinks.appStore}>
            <DownloadIcon /> {text('downloadApp')}
          </ExternalButtonLink>
          {isRegistered ? (
            <ButtonLink to={paths.dashboard.root.getHref()}>{text('enterDashboard')}</ButtonLink>
          ) : (
            <ButtonLink to={paths.auth.login.getHref()}>{text('signInToDashboard')}</ButtonLink>
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
