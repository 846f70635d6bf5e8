// The router's limit on a path parameter's length (find-my-way's maxParamLength), taken from the
// contract: the longest parameter any call declares. Fastify's default of 100 refused a Checkout
// Session id the contract allows up to 255 characters, with a 414 the API document could not
// foresee; hard-coding 255 here would drift the day a call declares a longer one.
import { type Endpoint, endpoints } from '@kegel/contract';
import * as z from 'zod/mini';

/**
 * The longest `maxLength` declared by a path parameter of any call. A parameter declaring none
 * (a passkey's or a session's id) is held to it as well: the router needs one number.
 */
export function longestPathParameter(
  calls: readonly Endpoint[] = Object.values(endpoints),
): number {
  const declared = calls.flatMap((call) => {
    if (!call.params) return [];
    const { properties = {} } = z.toJSONSchema(call.params) as {
      properties?: Record<string, { maxLength?: number }>;
    };
    return Object.values(properties).flatMap(({ maxLength }) =>
      maxLength === undefined ? [] : [maxLength],
    );
  });
  if (declared.length === 0)
    throw new Error('no path parameter of the contract declares a maxLength');
  return Math.max(...declared);
}
