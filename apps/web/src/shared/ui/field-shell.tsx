import type { ReactNode } from 'react';

import styles from './form-field.module.css';

/**
 * Label, control and error of one form field. The error is announced and tied to the input
 * through `errorId` (the input sets aria-describedby to it).
 */
export function FieldShell({
  label,
  inputId,
  errorId,
  error,
  children,
}: {
  label: string;
  inputId: string;
  errorId: string;
  error: string | undefined;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <div className={styles.field}>
      <label className={styles.label} htmlFor={inputId}>
        {label}
      </label>
      <div className={styles.control}>{children}</div>
      {error ? (
        <p className={styles.error} id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
