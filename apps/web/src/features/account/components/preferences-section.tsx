import type { UpdatePreferencesRequest } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { Checkbox } from '../../../shared/ui/checkbox';
import { Skeleton } from '../../../shared/ui/skeleton';
import { preferencesQuery, useUpdatePreferences } from '../preferences-api';
import styles from './settings.module.css';

/**
 * "Preferences": the member's choices beyond his credentials, each saved as soon as its box
 * changes. The Apple consent is what lets the server answer Apple's refund requests about him
 * (docs/app-store.md, Refund requests); without it Apple hears nothing from us.
 */
export function PreferencesSection(): React.JSX.Element {
  const preferences = useQuery(preferencesQuery());
  const update = useUpdatePreferences();
  const save = (change: UpdatePreferencesRequest) => update.mutate(change);

  return (
    <section className={styles.section} aria-labelledby="preferences-title">
      <h2 className={styles.sectionTitle} id="preferences-title">
        Preferences
      </h2>
      {preferences.isError ? (
        <p className={styles.value} role="alert">
          Your preferences could not be loaded. {preferences.error.message}
        </p>
      ) : !preferences.data ? (
        <Skeleton className={styles.skeletonDevice} />
      ) : (
        <div className={styles.form}>
          <Checkbox
            id="apple-consumption-consent"
            label="Share my usage with Apple if I ask Apple for a refund"
            describedBy="apple-consumption-consent-hint"
            checked={preferences.data.appleConsumptionConsent}
            onChange={(event) => save({ appleConsumptionConsent: event.target.checked })}
          />
          <p className={styles.value} id="apple-consumption-consent-hint">
            When you ask Apple to refund premium bought on your iPhone, Apple may ask us how you
            used it. With this on, we tell Apple that your premium was delivered and, depending on
            how much of the period you had used, whether we think a refund is due. With it off, we
            share nothing.
          </p>
          <Checkbox
            id="expiry-reminders"
            label="Email me before my premium ends"
            checked={preferences.data.expiryReminders}
            onChange={(event) => save({ expiryReminders: event.target.checked })}
          />
        </div>
      )}
    </section>
  );
}
