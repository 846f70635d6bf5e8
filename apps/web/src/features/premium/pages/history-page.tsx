import { useQuery } from '@tanstack/react-query';

import { PremiumStatus } from '../../../shared/premium/premium-status';
import { PurchaseHistory, PurchaseHistorySections } from '../../../shared/premium/purchase-history';
import { useProfile } from '../../../shared/session/session';
import { Card } from '../../../shared/ui/card';
import { premiumQueries } from '../api';
import { ManageSubscriptionButton } from '../components/manage-subscription-button';

/**
 * `/dashboard/history`: premium status, the subscriptions still running, and every
 * purchase, newest first.
 */
export function HistoryPage(): React.JSX.Element | null {
  const { data: profile } = useProfile();
  const subscriptions = useQuery(premiumQueries.subscriptions());
  if (!profile) return null;

  return (
    <Card title="Purchase History" titleLevel={1} aside={profile.email}>
      <PurchaseHistorySections>
        <PremiumStatus profile={profile} />
        <PurchaseHistory
          purchases={subscriptions.data?.data ?? []}
          isPending={subscriptions.isPending}
          loadError={subscriptions.isError ? subscriptions.error.message : null}
          manageStripe={<ManageSubscriptionButton />}
        />
      </PurchaseHistorySections>
    </Card>
  );
}
