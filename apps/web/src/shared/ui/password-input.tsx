import { type InputHTMLAttributes, type Ref, useId, useState } from 'react';

import { useIsAppRunning } from '../browser/use-is-app-running';
import { FieldShell } from './field-shell';
import styles from './form-field.module.css';
import { ViewIcon, ViewOffIcon } from './icons/icon-set';
import { useFormsText } from './text';

export interface PasswordInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> {
  label: string;
  error?: string;
  /** The input element itself: a form focuses the first invalid field through it. */
  ref?: Ref<HTMLInputElement>;
}

/** A password field with a show/hide toggle. */
export function PasswordInput({
  label,
  error,
  id,
  ref,
  ...inputProps
}: PasswordInputProps): React.JSX.Element {
  const text = useFormsText();
  const generatedId = useId();
  const inputId = id ?? generatedId;
  const errorId = `${inputId}-error`;
  const [isVisible, setIsVisible] = useState(false);
  // On a prerendered page the toggle does nothing until the app has taken the page over: it is
  // drawn disabled until then, so a click is not silently dropped.
  const isAppRunning = useIsAppRunning();
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
        aria-label={text(isVisible ? 'hidePassword' : 'showPassword')}
        aria-pressed={isVisible}
        aria-controls={inputId}
        disabled={!isAppRunning}
      >
        {isVisible ? <ViewOffIcon /> : <ViewIcon />}
      </button>
    </FieldShell>
  );
}
