// Ids that come from outside (a URL, a Stripe session's client_reference_id, an App Store
// appAccountToken) are checked before they meet a uuid column: PostgreSQL answers a malformed
// one with an error, not with "no such row".
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
