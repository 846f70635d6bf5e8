import type { SessionItem } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { formatSessionDate } from '../../../shared/format/dates';
import { Button } from '../../../shared/ui/button';
import { Skeleton } from '../../../shared/ui/skeleton';
import { sessionListQuery, useEndOtherSessions, useEndSession } from '../api';
import { useAccountText } from '../text';
import styles from './settings.module.css';

const METHOD_KEYS = {
  password: 'method.password',
  google: 'method.google',
  apple: 'method.apple',
  passkey: 'method.passkey',
} as const satisfies Record<NonNullable<SessionItem['method']>, string>;

/**
 * "Where you're signed in": every open session of the member, the one in this browser marked,
 * with a sign-out per device and one for all the others.
 */
export function SignedInDevicesSection(): React.JSX.Element {
  const sessions = useQuery(sessionListQuery());
  const endSession = useEndSession();
  const endOthers = useEndOtherSessions();
  const list = sessions.data?.data ?? [];
  const hasOthers = list.some((session) => !session.current);
  const text = useAccountText();

  return (
    <section className={styles.section} aria-labelledby="devices-title">
      <div className={styles.sectionHeader}>
        <h2 className={styles.sectionTitle} id="devices-title">
          {text('devices.title')}
        </h2>
        {hasOthers ? (
          <Button
            variant="outlined"
            size={38}
            disabled={endOthers.isPending}
            onClick={() => endOthers.mutate()}
          >
            {text('devices.signOutOthers')}
          </Button>
        ) : null}
      </div>
      {sessions.isError ? (
        <p className={styles.value} role="alert">
          {text('devices.loadFailed', { reason: sessions.error.message })}
        </p>
      ) : sessions.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">{text('devices.loading')}</span>
          <Skeleton className={styles.skeletonDevice} />
        </div>
      ) : (
        <ul className={styles.devices} aria-labelledby="devices-title">
          {list.map((session) => (
            <li key={session.id} className={styles.device}>
              <div>
                <p className={styles.deviceName}>
                  {session.device}
                  {session.current ? (
                    <span className={styles.currentTag}>{text('devices.thisDevice')}</span>
                  ) : null}
                </p>
                <p className={styles.value}>
                  {session.method ? `${text(METHOD_KEYS[session.method])} · ` : ''}
                  {text('devices.lastActive', { date: formatSessionDate(session.lastUsedAt) })}
                </p>
              </div>
              {session.current ? null : (
                <Button
                  variant="outlined"
                  size={38}
                  disabled={endSession.isPending}
                  aria-label={text('devices.signOutLabel', {
                    device: session.device,
                    date: formatSessionDate(session.lastUsedAt),
                  })}
                  onClick={() => endSession.mutate(session.id)}
                >
                  {text('devices.signOut')}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
