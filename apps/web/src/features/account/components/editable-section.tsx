import { type ReactNode, useState } from 'react';

import { Button } from '../../../shared/ui/button';
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
  doneNote,
  children,
}: {
  id: string;
  title: string;
  summary: ReactNode;
  openLabel: string;
  doneNote: ReactNode;
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
            variant="outlined"
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
      {isDone ? (
        <p className={styles.note} role="status">
          {doneNote}
        </p>
      ) : null}
      {isOpen ? children(controls) : null}
    </section>
  );
}

/** Save Changes and Cancel, under a settings form. */
export function FormActions({
  isSubmitting,
  onCancel,
}: {
  isSubmitting: boolean;
  onCancel: () => void;
}): React.JSX.Element {
  return (
    <div className={styles.actions}>
      <Button type="submit" size={44} disabled={isSubmitting}>
        Save Changes
      </Button>
      <Button variant="ghost" size={44} onClick={onCancel}>
        Cancel
      </Button>
    </div>
  );
}
