import { forwardRef, type InputHTMLAttributes, useId } from 'react';

import { FieldShell } from './field-shell';
import styles from './form-field.module.css';

export interface TextInputProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  /** Shown under the field and announced with it. */
  error?: string;
}

/** A labelled 48px text input; its error is tied to it with aria-describedby. */
export const TextInput = forwardRef<HTMLInputElement, TextInputProps>(function TextInput(
  { label, error, id, className, ...inputProps },
  ref,
) {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  return (
    <FieldShell label={label} inputId={inputId} errorId={errorId} error={error}>
      <input
        ref={ref}
        id={inputId}
        className={[styles.input, className].filter(Boolean).join(' ')}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? errorId : undefined}
        {...inputProps}
      />
    </FieldShell>
  );
});

/** An email field: the right keyboard on phones and the browser's address autofill. */
export const EmailInput = forwardRef<HTMLInputElement, TextInputProps>(
  function EmailInput(props, ref) {
    return <TextInput ref={ref} type="email" autoComplete="email" inputMode="email" {...props} />;
  },
);
