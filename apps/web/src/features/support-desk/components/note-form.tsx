import { NOTE_MAX_LENGTH, NoteRequestSchema, supportDeskMessages } from '@kegel/contract';
import { useId } from 'react';

import { useContractForm } from '../../../shared/forms/use-contract-form';
import { Button } from '../../../shared/ui/button';
import { FieldShell } from '../../../shared/ui/field-shell';
import fieldStyles from '../../../shared/ui/form-field.module.css';
import { useAddNote } from '../api';
import { showRefusalOnField } from '../server-refusals';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/** A note on the member's story, for the next operator; kept in the audit trail, never edited. */
export function NoteForm({
  memberId,
  onDone,
}: {
  memberId: string;
  onDone: () => void;
}): React.JSX.Element {
  const text = useDeskText();
  const { form, field } = useContractForm(NoteRequestSchema, { text: '' });
  const note = useAddNote(memberId, {
    showOnField: (error) =>
      showRefusalOnField(form, error, {
        text: [supportDeskMessages.noteRequired, supportDeskMessages.noteTooLong],
      }),
  });
  const inputId = useId();
  const { error, ...binding } = field('text');
  return (
    <form
      className={styles.form}
      noValidate
      aria-label={text('addNote')}
      onSubmit={form.handleSubmit((values) => note.mutate(values, { onSuccess: onDone }))}
    >
      <FieldShell label={text('note')} inputId={inputId} errorId={`${inputId}-error`} error={error}>
        <textarea
          id={inputId}
          className={`${fieldStyles.input} ${styles.textarea}`}
          rows={4}
          maxLength={NOTE_MAX_LENGTH}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${inputId}-error` : undefined}
          {...binding}
        />
      </FieldShell>
      <div className={styles.formActions}>
        <Button type="submit" size={44} disabled={note.isPending}>
          {text('addNote')}
        </Button>
        <Button variant="ghost" size={44} onClick={onDone}>
          {text('cancel')}
        </Button>
      </div>
    </form>
  );
}
