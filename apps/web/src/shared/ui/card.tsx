import type { ReactNode } from 'react';

import styles from './card.module.css';

/** A card with a header line: the title, and on the right e.g. the member's email. */
export function Card({
  title,
  aside,
  children,
  titleLevel = 2,
}: {
  title?: string;
  aside?: ReactNode;
  children: ReactNode;
  titleLevel?: 1 | 2;
}): React.JSX.Element {
  const Heading = titleLevel === 1 ? 'h1' : 'h2';
  return (
    <section className={styles.card}>
      {title ? (
        <header className={styles.header}>
          <Heading className={styles.title}>{title}</Heading>
          {aside ? <span className={styles.aside}>{aside}</span> : null}
        </header>
      ) : null}
      <div className={styles.body}>{children}</div>
    </section>
  );
}

/**
 * The 602px card of the auth pages and the emailed-link pages. `tone="danger"` colours the icon
 * red, for a card that says something failed (a dead link), so its icon does not read as success.
 */
export function AuthCard({
  title,
  subtitle,
  icon,
  tone = 'accent',
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  icon?: ReactNode;
  tone?: 'accent' | 'danger';
  children?: ReactNode;
}): React.JSX.Element {
  return (
    <div className={styles.authPage}>
      <section className={`${styles.card} ${styles.authCard}`} aria-labelledby="auth-card-title">
        {icon ? (
          <span
            className={
              tone === 'danger' ? `${styles.authIcon} ${styles.authIconDanger}` : styles.authIcon
            }
          >
            {icon}
          </span>
        ) : null}
        <h1 className={styles.authTitle} id="auth-card-title">
          {title}
        </h1>
        {subtitle ? <p className={styles.authSubtitle}>{subtitle}</p> : null}
        {children ? <div className={styles.authContent}>{children}</div> : null}
      </section>
    </div>
  );
}
