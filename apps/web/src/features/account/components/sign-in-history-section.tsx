import type { SignInItem } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { formatSessionDate } from '../../../shared/format/dates';
import { Skeleton } from '../../../shared/ui/skeleton';
import { signInHistoryQuery } from '../sign-ins-api';
import settings from './settings.module.css';
import styles from './sign-in-history-section.module.css';

/** How each sign-in method is named; a method this build does not know shows as sent. */
const METHOD_NAMES: Record<string, string> = {
  password: 'Email and password',
  google: 'Google',
  apple: 'Apple',
  passkey: 'Passkey',
  'two-step': 'Two-step code',
};

function outcomeLabel(item: SignInItem): string {
  if (item.outcome === 'success') return 'Signed in';
  if (item.method === 'password') return 'Wrong password';
  return item.method === 'two-step' ? 'Wrong code' : 'Failed';
}

/**
 * "Sign-in history": the member's latest 20 sign-ins and failed attempts, newest first, so he can
 * spot one that was not his (ADR 019). Read-only: "Where you're signed in" ends sessions.
 */
export function SignInHistorySection(): React.JSX.Element {
  const history = useQuery(signInHistoryQuery());
  const items = history.data?.data ?? [];

  return (
    <section className={settings.section} aria-labelledby="sign-in-history-title">
      <div>
        <h2 className={settings.sectionTitle} id="sign-in-history-title">
          Sign-in history
        </h2>
        <p className={styles.intro}>
          The latest sign-ins and failed attempts on your account. We email you when a new device or
          network signs in.
        </p>
      </div>
      {history.isError ? (
        <p className={settings.value} role="alert">
          Your sign-in history could not be loaded. {history.error.message}
        </p>
      ) : history.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">Loading your sign-in history</span>
          <Skeleton className={styles.skeleton} />
        </div>
      ) : items.length === 0 ? (
        <p className={settings.value}>No sign-ins recorded yet.</p>
      ) : (
        <ul className={styles.events} aria-labelledby="sign-in-history-title">
          {items.map((item, index) => (
            <li key={`${item.at}-${index}`} className={styles.event}>
              <p className={styles.headline}>
                {item.device}
                <span
                  className={`${styles.outcome} ${item.outcome === 'success' ? styles.success : styles.failure}`}
                >
                  {outcomeLabel(item)}
                </span>
              </p>
              <p className={styles.details}>
                {formatSessionDate(item.at)} · {METHOD_NAMES[item.method] ?? item.method} ·{' '}
                {item.address}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
