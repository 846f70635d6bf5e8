import type { AnchorHTMLAttributes, ButtonHTMLAttributes, ReactNode } from 'react';
import { Link, type LinkProps } from 'react-router';

import { useIsAppRunning } from '../browser/use-is-app-running';
import styles from './button.module.css';

/** `danger` is for the one button that destroys something (deleting the account). */
export type ButtonVariant = 'primary' | 'secondary' | 'outlined' | 'ghost' | 'danger';
export type ButtonSize = 56 | 48 | 44 | 38;

interface ButtonLookProps {
  variant?: ButtonVariant;
  size?: ButtonSize;
  fullWidth?: boolean;
  children: ReactNode;
}

function buttonClassName(
  { variant = 'primary', size = 48, fullWidth = false }: Omit<ButtonLookProps, 'children'>,
  extra?: string,
): string {
  return [
    styles.button,
    styles[variant],
    styles[`size${size}`],
    fullWidth ? styles.fullWidth : undefined,
    extra,
  ]
    .filter(Boolean)
    .join(' ');
}

export function Button({
  variant,
  size,
  fullWidth,
  className,
  type = 'button',
  disabled,
  ...rest
}: ButtonLookProps & ButtonHTMLAttributes<HTMLButtonElement>): React.JSX.Element {
  // On a prerendered page, until the app has taken it over, a form's submit is disabled: the
  // browser would otherwise send the form itself, its fields (a password among them) in the
  // address. A disabled default button also stops Enter from sending it. It looks disabled
  // meanwhile, as it is (button.module.css).
  const isAppRunning = useIsAppRunning();
  const waitsForApp = type === 'submit' && !isAppRunning;
  return (
    <button
      type={type}
      className={buttonClassName({ variant, size, fullWidth }, className)}
      disabled={disabled || waitsForApp}
      data-waits-for-app={waitsForApp || undefined}
      {...rest}
    />
  );
}

/** A link that looks like a button: navigation stays a link for keyboards and screen readers. */
export function ButtonLink({
  variant,
  size,
  fullWidth,
  className,
  ...rest
}: ButtonLookProps & LinkProps): React.JSX.Element {
  return (
    <Link
      className={buttonClassName(
        { variant, size, fullWidth },
        typeof className === 'string' ? className : undefined,
      )}
      {...rest}
    />
  );
}

/** A button-looking link to another site (the app store, say), opened in a new tab. */
export function ExternalButtonLink({
  variant,
  size,
  fullWidth,
  className,
  children,
  ...rest
}: ButtonLookProps & AnchorHTMLAttributes<HTMLAnchorElement>): React.JSX.Element {
  return (
    <a
      className={buttonClassName({ variant, size, fullWidth }, className)}
      target="_blank"
      rel="noreferrer"
      {...rest}
    >
      {children}
    </a>
  );
}
