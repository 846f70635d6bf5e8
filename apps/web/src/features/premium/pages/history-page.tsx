import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';

import { PremiumStatus } from '../../../shared/premium/premium-status';
import { PurchaseHistory } from '../../../shared/premium/purchase-history';
import { usePremiumText } from '../../../shared/premium/text';
import { useProfile } from '../../../shared/session/session';
import { Card } from '../../../shared/ui/card';
import { premiumQueries } from '../api';
import { ManageSubscriptionButton } from '../components/manage-subscription-button';

/**
 * The Purchase History, handed on from this page's file to the support desk's "view as
 * member" (app/routes/support-desk-routes.tsx), which loads this file for them: imported by the
 * desk directly, they would be a file of their own, one more the member's page loads.
 */
export { PurchaseHistory };

/**
 * Loaded after the page: few members need it, and the page's initial JavaScript is pinned
 * (scripts/initial-javascript.mjs).
 */
const ClaimPurchaseForm = lazy(async () => ({
  default: (await import('../components/claim-purchase-form')).ClaimPurchaseForm,
}));

/**
 * `/dashboard/history`: premium status, the subscriptions still running, and every
 * purchase, newest first.
 */
export function HistoryPage(): React.JSX.Element | null {
  const text = usePremiumText();
  const { data: profile } = useProfile();
  const subscriptions = useQuery(premiumQueries.subscriptions());
  if (!profile) return null;

  return (
    <Card title={text('historyTitle')} titleLevel={1} aside={profile.email}>
      <PurchaseHistory
        status={<PremiumStatus profile={profile} />}
        purchases={subscriptions.data?.data ?? []}
        isPending={subscriptions.isPending}
        loadError={subscriptions.isError ? subscriptions.error.message : null}
        manageStripe={<ManageSubscriptionButton />}
      />
      <Suspense fallback={null}>
        <ClaimPurchaseForm />
      </Suspense>
    </Card>
  );
}
