import { type InputHTMLAttributes, type ReactNode, type Ref, useId } from 'react';

import styles from './form-field.module.css';

export interface CheckboxProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  /** What ticking the box says, next to it: the whole line is clickable. */
  label: ReactNode;
  /** Shown under the box and announced with it. */
  error?: string;
  /** Ids of text elsewhere on the page that explains the box (read with it). */
  describedBy?: string;
  /** The input element itself: a form focuses the first invalid field through it. */
  ref?: Ref<HTMLInputElement>;
}

/** A labelled checkbox; its error is tied to it with aria-describedby, like the text fields'. */
export function Checkbox({
  label,
  error,
  describedBy,
  id,
  className,
  ref,
  ...inputProps
}: CheckboxProps): React.JSX.Element {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  const description = [describedBy, error ? errorId : undefined].filter(Boolean).join(' ');
  return (
    <div className={styles.field}>
      <div className={styles.checkboxRow}>
        <input
          ref={ref}
          id={inputId}
          type="checkbox"
          className={[styles.checkbox, className].filter(Boolean).join(' ')}
          aria-invalid={error ? true : undefined}
          aria-describedby={description || undefined}
          {...inputProps}
        />
        <label className={styles.checkboxLabel} htmlFor={inputId}>
          {label}
        </label>
      </div>
      {error ? (
        <p className={styles.error} id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
