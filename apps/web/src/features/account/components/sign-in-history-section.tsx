import type { SignInItem } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { formatSessionDate } from '../../../shared/format/dates';
import { Skeleton } from '../../../shared/ui/skeleton';
import { signInHistoryQuery } from '../sign-ins-api';
import { useAccountText } from '../text';
import settings from './settings.module.css';
import styles from './sign-in-history-section.module.css';

type AccountText = ReturnType<typeof useAccountText>;

/** How each sign-in method is named; a method this build does not know shows as sent. */
const METHOD_KEYS: Record<string, Parameters<AccountText>[0]> = {
  password: 'method.password',
  google: 'method.google',
  apple: 'method.apple',
  passkey: 'method.passkey',
  'two-step': 'method.twoStep',
};

function methodName(method: string, text: AccountText): string {
  const key = METHOD_KEYS[method];
  return key ? text(key) : method;
}

function outcomeLabel(item: SignInItem, text: AccountText): string {
  if (item.outcome === 'success') return text('history.signedIn');
  if (item.method === 'password') return text('history.wrongPassword');
  return text(item.method === 'two-step' ? 'history.wrongCode' : 'history.failed');
}

/**
 * "Sign-in history": the member's latest 20 sign-ins and failed attempts, newest first, so he can
 * spot one that was not his (ADR 019). Read-only: "Where you're signed in" ends sessions.
 */
export function SignInHistorySection(): React.JSX.Element {
  const history = useQuery(signInHistoryQuery());
  const items = history.data?.data ?? [];
  const text = useAccountText();

  return (
    <section className={settings.section} aria-labelledby="sign-in-history-title">
      <div>
        <h2 className={settings.sectionTitle} id="sign-in-history-title">
          {text('history.title')}
        </h2>
        <p className={styles.intro}>{text('history.intro')}</p>
      </div>
      {history.isError ? (
        <p className={settings.value} role="alert">
          {text('history.loadFailed', { reason: history.error.message })}
        </p>
      ) : history.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">{text('history.loading')}</span>
          <Skeleton className={styles.skeleton} />
        </div>
      ) : items.length === 0 ? (
        <p className={settings.value}>{text('history.none')}</p>
      ) : (
        <ul className={styles.events} aria-labelledby="sign-in-history-title">
          {items.map((item, index) => (
            <li key={`${item.at}-${index}`} className={styles.event}>
              <p className={styles.headline}>
                {item.device}
                <span
                  className={`${styles.outcome} ${item.outcome === 'success' ? styles.success : styles.failure}`}
                >
                  {outcomeLabel(item, text)}
                </span>
              </p>
              <p className={styles.details}>
                {formatSessionDate(item.at)} · {methodName(item.method, text)} · {item.address}
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
