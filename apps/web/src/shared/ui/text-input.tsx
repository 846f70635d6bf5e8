import { type InputHTMLAttributes, type Ref, useId } from 'react';

import { FieldShell } from './field-shell';
import styles from './form-field.module.css';

export interface TextInputProps extends InputHTMLAttributes<HTMLInputElement> {
  label: string;
  /** Shown under the field and announced with it. */
  error?: string;
  /** A short note under the label, read with the field. */
  hint?: string;
  /** The input element itself: a form focuses the first invalid field through it. */
  ref?: Ref<HTMLInputElement>;
}

/** A labelled 48px text input; its error is tied to it with aria-describedby. */
export function TextInput({
  label,
  error,
  hint,
  id,
  className,
  ref,
  ...inputProps
}: TextInputProps): React.JSX.Element {
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  const hintId = `${inputId}-hint`;
  const describedBy = [hint ? hintId : undefined, error ? errorId : undefined]
    .filter(Boolean)
    .join(' ');
  return (
    <FieldShell
      label={label}
      inputId={inputId}
      errorId={errorId}
      error={error}
      hint={hint}
      hintId={hintId}
    >
      <input
        ref={ref}
        id={inputId}
        className={[styles.input, className].filter(Boolean).join(' ')}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
        {...inputProps}
      />
    </FieldShell>
  );
}

/** An email field: the right keyboard on phones and the browser's address autofill. */
export function EmailInput(props: TextInputProps): React.JSX.Element {
  return <TextInput type="email" autoComplete="email" inputMode="email" {...props} />;
}
