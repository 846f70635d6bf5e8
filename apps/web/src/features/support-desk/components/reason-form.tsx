import { ReasonRequestSchema, supportDeskMessages } from '@kegel/contract';
import { useState } from 'react';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import type { SendingForm } from '../../../shared/query/query-client';
import { Button } from '../../../shared/ui/button';
import { TextInput } from '../../../shared/ui/text-input';
import { useRemoveGrant, useSignOutEverywhere } from '../api';
import { showRefusalOnField } from '../server-refusals';
import { useDeskText } from '../text';
import { ConfirmStep } from './confirm-step';
import styles from './desk.module.css';

/** The writes that need only a reason. */
export type ReasonWrite =
  { kind: 'sign-out-everywhere' } | { kind: 'remove-grant'; grantId: string };

/** One write of the two, bound to this form's messages. */
function useReasonWrite(memberId: string, write: ReasonWrite, sendingForm: SendingForm) {
  const signOut = useSignOutEverywhere(memberId, sendingForm);
  const removeGrant = useRemoveGrant(memberId, sendingForm);
  return write.kind === 'remove-grant'
    ? {
        send: (reason: string, onSuccess: () => void) =>
          removeGrant.mutate({ grantId: write.grantId, reason }, { onSuccess }),
        isPending: removeGrant.isPending,
      }
    : {
        send: (reason: string, onSuccess: () => void) => signOut.mutate(reason, { onSuccess }),
        isPending: signOut.isPending,
      };
}

/**
 * A write that needs only a reason (sign the member out everywhere, remove a grant): the reason,
 * then a confirmation in words, then the write; the server's refusal of the reason shows under
 * the field.
 */
export function ReasonForm({
  memberId,
  write,
  label,
  submitLabel,
  question,
  confirmLabel,
  onDone,
}: {
  memberId: string;
  write: ReasonWrite;
  label: string;
  submitLabel: string;
  question: string;
  /** The confirmation's button: "Yes, sign out everywhere". */
  confirmLabel: string;
  onDone: () => void;
}): React.JSX.Element {
  const text = useDeskText();
  const { form, field } = useContractForm(ReasonRequestSchema, { reason: '' });
  const [reason, setReason] = useState<string | null>(null);
  const { send, isPending } = useReasonWrite(memberId, write, {
    showOnField: (error) => {
      const shown = showRefusalOnField(form, error, {
        reason: [supportDeskMessages.reasonRequired, supportDeskMessages.reasonTooLong],
      });
      if (shown) setReason(null);
      return shown;
    },
  });

  return (
    <form
      className={styles.form}
      noValidate
      aria-label={label}
      onSubmit={form.handleSubmit((values) => setReason(values.reason))}
    >
      <TextInput label={text('reason')} readOnly={reason !== null} {...field('reason')} />
      {reason === null ? (
        <div className={styles.formActions}>
          <Button type="submit" size={44} variant="outlined">
            {submitLabel}
          </Button>
          <Button variant="ghost" size={44} onClick={onDone}>
            {text('cancel')}
          </Button>
        </div>
      ) : (
        <ConfirmStep
          question={question}
          confirmLabel={confirmLabel}
          isPending={isPending}
          onConfirm={() => send(reason, onDone)}
          onBack={() => setReason(null)}
        />
      )}
    </form>
  );
}
