import type { Preferences } from '@kegel/contract';

import { fakeApi } from './fake-api';

/** The server's preferences for Account Settings' tests, changed by each PUT it accepts. */
export function preferencesServer(start: Partial<Preferences> = {}): void {
  let kept: Preferences = {
    appleConsumptionConsent: false,
    appleConsumptionConsentChangedAt: null,
    expiryReminders: true,
    locale: null,
    ...start,
  };
  fakeApi.on('listSessions', { body: { data: [] } });
  fakeApi.on('readPreferences', () => ({ body: kept }));
  fakeApi.on('updatePreferences', (request) => {
    kept = { ...kept, ...(request.body as Partial<Preferences>) };
    return { body: kept };
  });
}
