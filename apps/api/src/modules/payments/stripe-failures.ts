// Stripe's errors are Stripe's answers to us: an HTTP status and a text about our account, our
// key, our request. None of it is for the caller (a 401 there means our key, not his session; a
// 400 names customer ids), so whatever a payments call lets through becomes a ProviderError,
// answered 502 or 503 with the generic message and logged in full for an operator.
import Stripe from 'stripe';

import { ProviderError } from '../../errors';

/** Rate limited (429, lock timeouts too), unreachable, or Stripe's own 5xx: a moment may cure it. */
function isTemporary(error: Stripe.errors.StripeError): boolean {
  return (
    error instanceof Stripe.errors.StripeRateLimitError ||
    error instanceof Stripe.errors.StripeConnectionError ||
    error instanceof Stripe.errors.StripeAPIError ||
    error.statusCode === 429 ||
    (error.statusCode ?? 0) >= 500
  );
}

/** A Stripe error as a ProviderError; anything else (ours, the database's) as it was. */
export function asProviderError(error: unknown): unknown {
  if (!(error instanceof Stripe.errors.StripeError)) return error;
  return new ProviderError('Stripe', isTemporary(error), error);
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
