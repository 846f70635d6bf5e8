import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { openPendingTab } from '../../../shared/browser/pending-tab';
import { usePremiumText } from '../../../shared/premium/text';
import { Button } from '../../../shared/ui/button';
import { toasts } from '../../../shared/ui/toasts';
import { premiumQueries } from '../api';

/**
 * 'Manage Subscription': the first click asks for the Stripe customer portal link and
 * opens it in a new tab when it returns; later clicks reuse it while it is fresh.
 */
export function ManageSubscriptionButton(): React.JSX.Element {
  const text = usePremiumText();
  const queryClient = useQueryClient();
  const [isOpening, setIsOpening] = useState(false);

  async function openPortal(): Promise<void> {
    const portalTab = openPendingTab(text('openingPortal'));
    setIsOpening(true);
    try {
      const { url } = await queryClient.fetchQuery(premiumQueries.customerPortal());
      portalTab.go(url);
    } catch (error) {
      portalTab.close();
      toasts.error((error as Error).message);
    } finally {
      setIsOpening(false);
    }
  }

  return (
    <Button variant="outlined" size={38} onClick={openPortal} disabled={isOpening}>
      {text('manageSubscription')}
    </Button>
  );
}
