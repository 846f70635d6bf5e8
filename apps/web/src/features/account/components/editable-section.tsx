import { type ReactNode, useState } from 'react';

import { Button, type ButtonVariant } from '../../../shared/ui/button';
import { useAccountText } from '../text';
import styles from './settings.module.css';

export interface SectionControls {
  /** Closes the form (Cancel). */
  close: () => void;
  /** Closes the form after a successful submit and shows the success note. */
  finish: () => void;
}

/**
 * A section of Account Settings whose form opens and closes by button and closes after a
 * successful submit, leaving a note.
 */
export function EditableSection({
  id,
  title,
  summary,
  openLabel,
  openVariant = 'outlined',
  doneNote,
  children,
}: {
  id: string;
  title: string;
  summary: ReactNode;
  openLabel: string;
  /** The open button's look: `danger` for a section that destroys something. */
  openVariant?: ButtonVariant;
  /** Shown after a successful submit; none for a form that leaves the page on success. */
  doneNote?: ReactNode;
  children: (controls: SectionControls) => ReactNode;
}): React.JSX.Element {
  const [isOpen, setIsOpen] = useState(false);
  const [isDone, setIsDone] = useState(false);
  const controls: SectionControls = {
    close: () => setIsOpen(false),
    finish: () => {
      setIsOpen(false);
      setIsDone(true);
    },
  };
  return (
    <section className={styles.section} aria-labelledby={`${id}-title`}>
      <div className={styles.sectionHeader}>
        <div>
          <h2 className={styles.sectionTitle} id={`${id}-title`}>
            {title}
          </h2>
          <p className={styles.value}>{summary}</p>
        </div>
        {isOpen ? null : (
          <Button
            variant={openVariant}
            size={44}
            onClick={() => {
              setIsDone(false);
              setIsOpen(true);
            }}
          >
            {openLabel}
          </Button>
        )}
      </div>
      {isDone && doneNote ? (
        <p className={styles.note} role="status">
          {doneNote}
        </p>
      ) : null}
      {isOpen ? children(controls) : null}
    </section>
  );
}

/** Save Changes (or what the form does) and Cancel, under a settings form. */
export function FormActions({
  isSubmitting,
  onCancel,
  submitLabel,
  submitVariant = 'primary',
}: {
  isSubmitting: boolean;
  onCancel: () => void;
  submitLabel?: string;
  submitVariant?: ButtonVariant;
}): React.JSX.Element {
  const text = useAccountText();
  return (
    <div className={styles.actions}>
      <Button type="submit" variant={submitVariant} size={44} disabled={isSubmitting}>
        {submitLabel ?? text('form.saveChanges')}
      </Button>
      <Button variant="ghost" size={44} onClick={onCancel}>
        {text('form.cancel')}
      </Button>
    </div>
  );
}
