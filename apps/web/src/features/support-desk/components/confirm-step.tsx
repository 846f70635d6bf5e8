import { useId } from 'react';

import { Button } from '../../../shared/ui/button';
import { useDeskText } from '../text';
import styles from './desk.module.css';

/** "Are you sure?" before a write that cannot be taken back, in place of the form's buttons. */
export function ConfirmStep({
  question,
  confirmLabel,
  isPending,
  onConfirm,
  onBack,
}: {
  question: string;
  confirmLabel: string;
  isPending: boolean;
  onConfirm: () => void;
  onBack: () => void;
}): React.JSX.Element {
  const text = useDeskText();
  const questionId = useId();
  return (
    <div className={styles.confirm} role="alertdialog" aria-labelledby={questionId}>
      <p id={questionId} className={styles.confirmQuestion}>
        {question}
      </p>
      <div className={styles.formActions}>
        <Button variant="danger" size={44} onClick={onConfirm} disabled={isPending}>
          {confirmLabel}
        </Button>
        <Button variant="ghost" size={44} onClick={onBack} disabled={isPending}>
          {text('back')}
        </Button>
      </div>
    </div>
  );
}
