import { forwardRef, type InputHTMLAttributes, useId, useState } from 'react';

import { FieldShell } from './field-shell';
import styles from './form-field.module.css';
import { ViewIcon, ViewOffIcon } from './icons/icon-set';

export interface PasswordInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  label: string;
  error?: string;
}

/** A password field with a show/hide toggle. */
export const PasswordInput = forwardRef<HTMLInputElement, PasswordInputProps>(
  function PasswordInput({ label, error, id, ...inputProps }, ref) {
    const generatedId = useId();
    const inputId = id ?? generatedId;
    const errorId = `${inputId}-error`;
    const [isVisible, setIsVisible] = useState(false);
    return (
      <FieldShell label={label} inputId={inputId} errorId={errorId} error={error}>
        <input
          ref={ref}
          id={inputId}
          type={isVisible ? 'text' : 'password'}
          className={`${styles.input} ${styles.withToggle}`}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          autoCapitalize="off"
          autoCorrect="off"
          spellCheck={false}
          {...inputProps}
        />
        <button
          type="button"
          className={styles.toggle}
          onClick={() => setIsVisible((visible) => !visible)}
          aria-label={isVisible ? 'Hide password' : 'Show password'}
          aria-pressed={isVisible}
          aria-controls={inputId}
        >
          {isVisible ? <ViewOffIcon /> : <ViewIcon />}
        </button>
      </FieldShell>
    );
  },
);
