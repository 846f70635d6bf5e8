import {
  MAX_GRANT_DAYS,
  type OperatorRole,
  ReasonRequestSchema,
  SUPPORT_MAX_GRANT_DAYS,
  supportDeskMessages,
} from '@kegel/contract';
import { useState } from 'react';
import { z } from 'zod/mini';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import { useGrantDays } from '../api';
import { showRefusalOnField } from '../server-refusals';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/**
 * The days as typed, checked as the contract checks them (GrantDaysRequestSchema, its words),
 * and under support's limit for support. Read as text rather than with the contract's number
 * schema: zod's number checks would join the form code every page with a form loads.
 */
function grantFormSchema(maxDays: number) {
  return z.object({
    days: z.string().check(
      z.trim(),
      z.regex(/^\d+$/, supportDeskMessages.daysInvalid),
      z.refine((days) => Number(days) >= 1, supportDeskMessages.daysInvalid),
      z.refine((days) => Number(days) <= MAX_GRANT_DAYS, supportDeskMessages.daysInvalid),
      z.refine((days) => Number(days) <= maxDays, supportDeskMessages.supportGrantLimit),
    ),
    reason: ReasonRequestSchema.shape.reason,
  });
}
const GrantFormSchema = grantFormSchema(MAX_GRANT_DAYS);
const SupportGrantFormSchema = grantFormSchema(SUPPORT_MAX_GRANT_DAYS);

/**
 * "Grant days": days and a reason the member reads in his Purchase History. The request key is
 * made when the form opens, so a double click or a retry of the same form grants once.
 */
export function GrantDaysForm({
  memberId,
  role,
  onDone,
}: {
  memberId: string;
  role: OperatorRole;
  onDone: () => void;
}): React.JSX.Element {
  const text = useDeskText();
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const { form, field } = useContractForm(
    role === 'support' ? SupportGrantFormSchema : GrantFormSchema,
    { days: '', reason: '' },
  );
  const grant = useGrantDays(memberId, {
    showOnField: (error) =>
      showRefusalOnField(form, error, {
        days: [supportDeskMessages.supportGrantLimit, supportDeskMessages.daysInvalid],
        reason: [supportDeskMessages.reasonRequired, supportDeskMessages.reasonTooLong],
      }),
  });

  return (
    <form
      className={styles.form}
      noValidate
      aria-label={text('grantDays')}
      onSubmit={form.handleSubmit((values) =>
        grant.mutate(
          { days: Number(values.days), reason: values.reason, idempotencyKey },
          { onSuccess: onDone },
        ),
      )}
    >
      <TextInput
        label={text('days')}
        type="number"
        inputMode="numeric"
        min={1}
        hint={
          role === 'support' ? text('supportGrantHint', { max: SUPPORT_MAX_GRANT_DAYS }) : undefined
        }
        {...field('days')}
      />
      <TextInput label={text('reason')} hint={text('grantReasonHint')} {...field('reason')} />
      <div className={styles.formActions}>
        <Button type="submit" size={44} disabled={grant.isPending}>
          {text('grantDays')}
        </Button>
        <Button variant="ghost" size={44} onClick={onDone}>
          {text('cancel')}
        </Button>
      </div>
    </form>
  );
}
