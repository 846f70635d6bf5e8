import type { ReactNode } from 'react';

import type { IconProps } from './icons/make-icon';
import styles from './warning.module.css';

/**
 * What the member must not miss (money he loses, a subscription that goes on, a password that
 * was cleared), tinted red and set apart from the text around it; its children are paragraphs.
 */
export function Warning({
  icon: Icon,
  children,
}: {
  icon?: (props: IconProps) => React.JSX.Element;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <div className={styles.warning}>
      {Icon ? <Icon width={20} height={20} className={styles.icon} /> : null}
      <div className={styles.body}>{children}</div>
    </div>
  );
}
