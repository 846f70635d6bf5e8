import type { SessionItem } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { formatSessionDate } from '../../../shared/format/dates';
import { Button } from '../../../shared/ui/button';
import { Skeleton } from '../../../shared/ui/skeleton';
import { sessionListQuery, useEndOtherSessions, useEndSession } from '../api';
import styles from './settings.module.css';

const METHOD_NAMES: Record<NonNullable<SessionItem['method']>, string> = {
  password: 'Email and password',
  google: 'Google',
  apple: 'Apple',
  passkey: 'Passkey',
};

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

  return (
    <section className={styles.section} aria-labelledby="devices-title">
      <div className={styles.sectionHeader}>
        <h2 className={styles.sectionTitle} id="devices-title">
          Where you&apos;re signed in
        </h2>
        {hasOthers ? (
          <Button
            variant="outlined"
            size={38}
            disabled={endOthers.isPending}
            onClick={() => endOthers.mutate()}
          >
            Sign out of all other devices
          </Button>
        ) : null}
      </div>
      {sessions.isError ? (
        <p className={styles.value} role="alert">
          Your devices could not be loaded. {sessions.error.message}
        </p>
      ) : sessions.isPending ? (
        <div aria-busy="true">
          <span className="visually-hidden">Loading your devices</span>
          <Skeleton className={styles.skeletonDevice} />
        </div>
      ) : (
        <ul className={styles.devices} aria-labelledby="devices-title">
          {list.map((session) => (
            <li key={session.id} className={styles.device}>
              <div>
                <p className={styles.deviceName}>
                  {session.device}
                  {session.current ? <span className={styles.currentTag}>This device</span> : null}
                </p>
                <p className={styles.value}>
                  {session.method ? `${METHOD_NAMES[session.method]} · ` : ''}
                  Last active {formatSessionDate(session.lastUsedAt)}
                </p>
              </div>
              {session.current ? null : (
                <Button
                  variant="outlined"
                  size={38}
                  disabled={endSession.isPending}
                  aria-label={`Sign out ${session.device}, last active ${formatSessionDate(session.lastUsedAt)}`}
                  onClick={() => endSession.mutate(session.id)}
                >
                  Sign out
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
