import { AppStoreClaimRequestSchema } from '@kegel/contract';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { formatLongDate } from '../../../shared/format/dates';
import { useContractForm } from '../../../shared/forms/use-contract-form';
import { api } from '../../../shared/http/api';
import { usePremiumText } from '../../../shared/premium/text';
import { sessionQueries } from '../../../shared/session/session';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import styles from './claim-purchase-form.module.css';

/**
 * The claim of an iPhone purchase by the order id of Apple's receipt email. Its own mutation
 * rather than one in ../api.ts: this file is loaded after the page (history-page.tsx), and what
 * api.ts holds is in the page's initial JavaScript, whose size is pinned.
 */
function useClaimPurchase() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (orderId: string) => api.call('claimAppStorePurchase', { body: { orderId } }),
    // The premium end and the purchases both change.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: sessionQueries.all() }),
  });
}

/**
 * "Bought on your iPhone?": a member who bought in the iOS app while signed out claims the
 * purchase here. Every refusal (no such order, another account's purchase, too many tries) is
 * shown under the field in the server's words.
 */
export function ClaimPurchaseForm(): React.JSX.Element {
  const text = usePremiumText();
  const claim = useClaimPurchase();
  const { form, field } = useContractForm(AppStoreClaimRequestSchema, { orderId: '' });
  // undefined: nothing claimed yet; null: claimed, but it gives no premium now (it has ended).
  const [claimedEnd, setClaimedEnd] = useState<string | null>();

  const onSubmit = form.handleSubmit(async ({ orderId }) => {
    setClaimedEnd(undefined);
    try {
      const { subscriptionEndDate } = await claim.mutateAsync(orderId);
      form.reset();
      setClaimedEnd(subscriptionEndDate);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      form.setError('orderId', { type: 'server', message }, { shouldFocus: true });
    }
  });

  return (
    <section className={styles.claim} aria-labelledby="claim-purchase-title">
      <h2 className={styles.title} id="claim-purchase-title">
        {text('claimTitle')}
      </h2>
      <form className={styles.form} onSubmit={(event) => void onSubmit(event)} noValidate>
        <TextInput
          label={text('orderIdLabel')}
          hint={text('orderIdHint')}
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          {...field('orderId')}
        />
        <Button type="submit" variant="outlined" disabled={claim.isPending}>
          {text('claimPurchase')}
        </Button>
      </form>
      {claimedEnd === undefined ? null : (
        <p className={styles.claimed} role="status">
          {claimedEnd
            ? text('claimedUntil', { date: formatLongDate(claimedEnd) })
            : text('claimedEnded')}
        </p>
      )}
    </section>
  );
}
