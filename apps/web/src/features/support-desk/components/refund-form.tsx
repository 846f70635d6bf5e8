import {
  formatMoney,
  type MemberPurchase,
  minorUnitDigits,
  ReasonRequestSchema,
  supportDeskMessages,
  toMinorUnits,
} from '@kegel/contract';
import { useMemo, useState } from 'react';
import { z } from 'zod/mini';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import { useRefundPurchase } from '../api';
import { showRefusalOnField } from '../server-refusals';
import { type DeskTexts, useDeskText } from '../text';
import { ConfirmStep } from './confirm-step';
import styles from './desk.module.css';

/** What the amount is typed in: "dollars" for US dollars, else the currency's code. */
function unitName(text: DeskTexts, currency: string): string {
  return currency.toLowerCase() === 'usd' ? text('unitDollars') : currency.toUpperCase();
}

/**
 * The refund as the operator types it: whole units of the purchase's currency with at most its
 * decimals (4.99 dollars, 500 yen, 4.990 dinars), which the API takes in minor units.
 */
function refundFormSchema(text: DeskTexts, currency: string) {
  const digits = minorUnitDigits(currency);
  // The example keeps its point whatever the language: the field reads a point as the decimals'.
  const format = text('amountFormat', {
    unit: unitName(text, currency),
    example: (4.99).toFixed(digits),
  });
  const decimals = digits === 0 ? '' : `(\\.\\d{1,${digits}})?`;
  return z.object({
    amount: z.string().check(
      z.trim(),
      z.regex(new RegExp(`^(\\d+${decimals})?$`), format),
      z.refine((amount) => amount === '' || Number(amount) > 0, format),
    ),
    reason: ReasonRequestSchema.shape.reason,
  });
}

/** "4.99" dollars is 499; empty is all that is left. */
function minorUnitsOf(amount: string, currency: string): number | undefined {
  return amount === '' ? undefined : toMinorUnits(Number(amount), currency);
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
  const text = useDeskText();
  const schema = useMemo(
    () => refundFormSchema(text, purchase.currency),
    [text, purchase.currency],
  );
  const { form, field } = useContractForm(schema, { amount: '', reason: '' });
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
      aria-label={text('refundOf', { name: purchase.name })}
      onSubmit={form.handleSubmit(({ amount, reason }) =>
        setRequest({ amountCents: minorUnitsOf(amount, purchase.currency), reason }),
      )}
    >
      <div className={styles.inlineFields}>
        <TextInput
          label={text('amountLabel', { unit: unitName(text, purchase.currency) })}
          hint={text('amountHint', { amount: formatMoney(leftCents, purchase.currency) })}
          inputMode="decimal"
          readOnly={request !== null}
          {...field('amount')}
        />
        <TextInput label={text('reason')} readOnly={request !== null} {...field('reason')} />
      </div>
      {request === null ? (
        <div className={styles.formActions}>
          <Button type="submit" size={44} variant="outlined">
            {text('refund')}
          </Button>
          <Button variant="ghost" size={44} onClick={onDone}>
            {text('cancel')}
          </Button>
        </div>
      ) : (
        <ConfirmStep
          question={text('refundQuestion', {
            amount: formatMoney(request.amountCents ?? leftCents, purchase.currency),
            name: purchase.name,
          })}
          confirmLabel={text('confirmRefund')}
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
