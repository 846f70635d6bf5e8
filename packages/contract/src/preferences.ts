// What a member chose about his account beyond his credentials (GET/PUT /users/preferences).
// A file of its own: the pages that read the contract's profile schemas (users.ts) do not carry
// these; only Account Settings does.
import * as z from 'zod/mini';

import { IsoDateTimeSchema } from './fields';
import { LocaleSchema } from './users';

export const PreferencesSchema = z.object({
  /** "Share my usage with Apple if I ask Apple for a refund": off until he turns it on. */
  appleConsumptionConsent: z.boolean(),
  /** When he last gave or withdrew that consent; null: never (off). */
  appleConsumptionConsentChangedAt: z.nullable(IsoDateTimeSchema),
  /** "Email me before my premium ends": on until he turns it off. */
  expiryReminders: z.boolean(),
  /** The language of the product and its mails; null: never chosen (English). */
  locale: z.nullable(LocaleSchema),
});
export type Preferences = z.infer<typeof PreferencesSchema>;

export const preferencesMessages = {
  nothingToChange: 'Choose a preference to change',
  saved: 'Preferences saved',
};

/** Any of the preferences a member can change; the others stay as they are. */
export const UpdatePreferencesRequestSchema = z
  .object({
    appleConsumptionConsent: z.optional(z.boolean()),
    expiryReminders: z.optional(z.boolean()),
    locale: z.optional(LocaleSchema),
  })
  .check(
    z.refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: preferencesMessages.nothingToChange,
    }),
  );
export type UpdatePreferencesRequest = z.infer<typeof UpdatePreferencesRequestSchema>;
