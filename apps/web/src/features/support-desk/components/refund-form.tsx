import { type MemberPurchase, ReasonRequestSchema, supportDeskMessages } from '@kegel/contract';
import { useState } from 'react';
import { z } from 'zod/mini';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import { useRefundPurchase } from '../api';
import { formatMoney } from '../money';
import { showRefusalOnField } from '../server-refusals';
import { ConfirmStep } from './confirm-step';
import styles from './desk.module.css';

const AMOUNT_FORMAT =
  'Type the amount in dollars (4.99), or leave it empty to refund all that is left';

/** The refund as the operator types it: dollars, which the API takes as cents. */
const RefundFormSchema = z.object({
  amount: z.string().check(
    z.trim(),
    z.regex(/^(\d+(\.\d{1,2})?)?$/, AMOUNT_FORMAT),
    z.refine((amount) => amount === '' || Number(amount) > 0, AMOUNT_FORMAT),
  ),
  reason: ReasonRequestSchema.shape.reason,
});

/** "4.99" is 499 cents; empty is all that is left. */
function centsOf(amount: string): number | undefined {
  return amount === '' ? undefined : Math.round(Number(amount) * 100);
}

/** Refund a Stripe purchase, whole or in part (admin only): amount, reason, then confirm. */
export function RefundForm({
  memberId,
  purchase,
  onDone,
}: {
  memberId: string;
  purchase: MemberPurchase;
  onDone: () => void;
}): React.JSX.Element {
  const { form, field } = useContractForm(RefundFormSchema, { amount: '', reason: '' });
  const [request, setRequest] = useState<{ amountCents?: number; reason: string } | null>(null);
  const refund = useRefundPurchase(memberId, {
    showOnField: (error) => {
      const shown = showRefusalOnField(form, error, {
        amount: [supportDeskMessages.refundTooLarge, supportDeskMessages.amountInvalid],
        reason: [supportDeskMessages.reasonRequired, supportDeskMessages.reasonTooLong],
      });
      if (shown) setRequest(null);
      return shown;
    },
  });
  const leftCents = purchase.amountCents - purchase.refundedCents;

  return (
    <form
      className={styles.inlineForm}
      noValidate
      aria-label={`Refund ${purchase.name}`}
      onSubmit={form.handleSubmit(({ amount, reason }) =>
        setRequest({ amountCents: centsOf(amount), reason }),
      )}
    >
      <div className={styles.inlineFields}>
        <TextInput
          label="Amount in dollars (optional)"
          hint={`Empty: all that is left, ${formatMoney(leftCents, purchase.currency)}.`}
          inputMode="decimal"
          readOnly={request !== null}
          {...field('amount')}
        />
        <TextInput label="Reason" readOnly={request !== null} {...field('reason')} />
      </div>
      {request === null ? (
        <div className={styles.formActions}>
          <Button type="submit" size={44} variant="outlined">
            Refund
          </Button>
          <Button variant="ghost" size={44} onClick={onDone}>
            Cancel
          </Button>
        </div>
      ) : (
        <ConfirmStep
          question={`Refund ${formatMoney(request.amountCents ?? leftCents, purchase.currency)} of ${purchase.name} through Stripe? The member's days for it end when Stripe confirms the refund.`}
          confirmLabel="Yes, refund"
          isPending={refund.isPending}
          onConfirm={() =>
            refund.mutate({ purchaseId: purchase.id, ...request }, { onSuccess: onDone })
          }
          onBack={() => setRequest(null)}
        />
      )}
    </form>
  );
}
