import type { UpdatePreferencesRequest } from '@kegel/contract';
import { useQuery } from '@tanstack/react-query';

import { Checkbox } from '../../../shared/ui/checkbox';
import { Skeleton } from '../../../shared/ui/skeleton';
import { LanguageField } from './language-field';
import { preferencesQuery, useUpdatePreferences } from '../preferences-api';
import { useAccountText } from '../text';
import styles from './settings.module.css';

/**
 * "Preferences": the member's choices beyond his credentials, each saved as soon as its box
 * changes. The Apple consent is what lets the server answer Apple's refund requests about him
 * (docs/app-store.md, Refund requests); without it Apple hears nothing from us.
 */
export function PreferencesSection(): React.JSX.Element {
  const preferences = useQuery(preferencesQuery());
  const update = useUpdatePreferences();
  const text = useAccountText();
  const save = (change: UpdatePreferencesRequest) => update.mutate(change);

  return (
    <section className={styles.section} aria-labelledby="preferences-title">
      <h2 className={styles.sectionTitle} id="preferences-title">
        {text('preferences.title')}
      </h2>
      {preferences.isError ? (
        <p className={styles.value} role="alert">
          {text('preferences.loadFailed', { reason: preferences.error.message })}
        </p>
      ) : !preferences.data ? (
        <Skeleton className={styles.skeletonDevice} />
      ) : (
        <div className={styles.form}>
          <LanguageField stored={preferences.data.locale} />
          <Checkbox
            id="apple-consumption-consent"
            label={text('preferences.appleConsent')}
            describedBy="apple-consumption-consent-hint"
            checked={preferences.data.appleConsumptionConsent}
            onChange={(event) => save({ appleConsumptionConsent: event.target.checked })}
          />
          <p className={styles.value} id="apple-consumption-consent-hint">
            {text('preferences.appleConsentHint')}
          </p>
          <Checkbox
            id="expiry-reminders"
            label={text('preferences.reminders')}
            checked={preferences.data.expiryReminders}
            onChange={(event) => save({ expiryReminders: event.target.checked })}
          />
        </div>
      )}
    </section>
  );
}
