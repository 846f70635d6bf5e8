// Stripe's errors are Stripe's answers to us: an HTTP status and a text about our account, our
// key, our request. None of it is for the caller (a 401 there means our key, not his session; a
// 400 names customer ids), so whatever a payments call lets through becomes a ProviderError,
// answered 502 or 503 with the generic message and logged in full for an operator.
import type Stripe from 'stripe';

import { ProviderError } from '../../errors';
import { loadedStripeSdk } from '../../plugins/payments';

/** Rate limited (429, lock timeouts too), unreachable, or Stripe's own 5xx: a moment may cure it. */
function isTemporary({ errors }: typeof Stripe, error: Stripe.errors.StripeError): boolean {
  return (
    error instanceof errors.StripeRateLimitError ||
    error instanceof errors.StripeConnectionError ||
    error instanceof errors.StripeAPIError ||
    error.statusCode === 429 ||
    (error.statusCode ?? 0) >= 500
  );
}

/** A Stripe error as a ProviderError; anything else (ours, the database's) as it was. */
export function asProviderError(error: unknown): unknown {
  // Stripe's SDK is loaded with the first call to Stripe: an error before it is not Stripe's.
  const sdk = loadedStripeSdk();
  if (!sdk || !(error instanceof sdk.errors.StripeError)) return error;
  return new ProviderError('Stripe', isTemporary(sdk, error), error);
}

/** `work`, whose Stripe errors reach its caller as ProviderErrors. */
export function reportingStripeFailures<A extends unknown[], R>(
  work: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    try {
      return await work(...args);
    } catch (error) {
      throw asProviderError(error);
    }
  };
}
