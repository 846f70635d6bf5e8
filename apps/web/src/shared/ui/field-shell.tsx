import type { ReactNode } from 'react';

import styles from './form-field.module.css';

/**
 * Label, control, hint and error of one form field. The hint and the error are tied to the input
 * through `hintId` and `errorId` (the input lists them in aria-describedby); the error is
 * announced.
 */
export function FieldShell({
  label,
  inputId,
  errorId,
  error,
  hint,
  hintId,
  children,
}: {
  label: string;
  inputId: string;
  errorId: string;
  error: string | undefined;
  hint?: string;
  hintId?: string;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={inputId}>
        {label}
      </label>
      {hint ? (
        <p className={styles.hint} id={hintId}>
          {hint}
        </p>
      ) : null}
      <div className={styles.control}>{children}</div>
      {error ? (
        <p className={styles.error} id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
