import type { ReactNode } from 'react';

import styles from './status-page.module.css';

/** A page that says where the person is instead of what they asked for, and the way on. */
export function StatusPage({
  title,
  text,
  children,
}: {
  title: string;
  text: string;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <section className={styles.page} aria-labelledby="status-title">
      <h1 className={styles.title} id="status-title">
        {title}
      </h1>
      <p className={styles.text}>{text}</p>
      <div className={styles.actions}>{children}</div>
    </section>
  );
}
