// An example of one call, typed by the call itself: what a client sends (its path parameters,
// query and body, as the client writes them) and what it receives on success. The compiler holds
// every example to its call's schemas; contract-examples.test.ts parses each with them too (for
// what types cannot say: formats, lengths, patterns). The API document shows them, the reference
// page pre-fills "Try it out" with them, and the tests send them.
import type * as z from 'zod/v4/core';

import type { Endpoint, RequestOf, ResponseOf } from '../endpoint';
import type { endpoints } from '../endpoints';

/** A signed body as the provider posts it (Stripe's event), for a call that has one. */
type SignedBodyOf<E extends Endpoint> = E['signedBody'] extends {
  schema: infer S extends z.$ZodType;
}
  ? {
      signedBody: z.input<S>;
      /** The signature header's value, as the provider sends it (signed by no real key). */
      signature: string;
    }
  : unknown;

export type CallExample<E extends Endpoint> = RequestOf<E> &
  SignedBodyOf<E> & {
    /** The success answer's body. */
    response: ResponseOf<E>;
  };

/** One example per call of the contract: a call without one does not compile. */
export type CallExamples = {
  [Name in keyof typeof endpoints]: CallExample<(typeof endpoints)[Name]>;
};
