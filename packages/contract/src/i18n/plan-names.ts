// A plan's name by its duration, as both sides word it: the web's plan cards and order summary,
// and the API's Purchase History in a member's language (its database names plans in English).

/** The `purchase` catalog key naming `days` of premium, with its values: 1 Day, 1 Month, 12 Days. */
export function durationNameKey(
  days: number,
):
  | readonly ['durationDay' | 'durationWeek' | 'durationMonth' | 'durationYear']
  | readonly ['durationDays', { days: number }] {
  if (days === 1) return ['durationDay'];
  if (days === 7) return ['durationWeek'];
  if (days === 30 || days === 31) return ['durationMonth'];
  if (days === 365) return ['durationYear'];
  return ['durationDays', { days }];
}
