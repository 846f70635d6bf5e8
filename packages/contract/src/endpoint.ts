// One API call, described once: its route (method, path, session) and its schemas (path
// parameters, query, body, and the response of every status it answers with). The API registers
// its routes from these objects, the web app's HTTP client is typed by them, and the OpenAPI
// document at /api/openapi.json is generated from them.
import type * as z from 'zod/v4/core';

import { ErrorBodySchema } from './errors';
import type { Route } from './routes';

/** The statuses an endpoint may answer with the error shape. */
export type ErrorStatus =
  400 | 401 | 403 | 404 | 408 | 409 | 413 | 414 | 415 | 429 | 431 | 502 | 503;

/** The methods whose requests may carry a body, and so are read by the body parser. */
const METHODS_WITH_A_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
export type SuccessStatus = 200 | 201;

export interface EndpointSchemas {
  /** One line for the reference page. */
  summary: string;
  description?: string;
  /** The reference page's section. */
  tag:
    | 'Health'
    | 'Account'
    | 'Two-step sign-in'
    | 'Sign in with Google and Apple'
    | 'Passkeys'
    | 'Profile'
    | 'Payments'
    | 'Support desk';
  params?: z.$ZodObject;
  query?: z.$ZodObject;
  body?: z.$ZodType;
  /** The answer on success, by status. */
  success: Partial<Record<SuccessStatus, z.$ZodType>>;
  /** The statuses answered with the error shape beyond those every call can give. */
  errors?: readonly ErrorStatus[];
  /**
   * Headers of the success answer worth a client's reading (name: what it says), such as the
   * export's Content-Disposition.
   */
  successHeaders?: Readonly<Record<string, string>>;
  /**
   * A body the call reads as raw bytes, because a signature covers them exactly (Stripe's
   * webhook): documented with its signature header, never parsed by the route's validation.
   */
  signedBody?: { schema: z.$ZodType; signatureHeader: string; description: string };
  /**
   * Liveness only: the call reads nothing behind the process (no database, no provider), so it
   * is never answered 503.
   */
  readsNothingBehind?: true;
}

export type Endpoint = Route &
  EndpointSchemas & {
    /** Its name in the contract's table of calls (endpoints.ts); the document's operationId. */
    operationId?: string;
    /** Every status the call answers with, success and errors, and its body's schema. */
    responses: Partial<Record<SuccessStatus | ErrorStatus, z.$ZodType>>;
    successStatus: SuccessStatus;
  };

/**
 * Joins a route and its schemas, with the statuses the server itself answers for any call of its
 * kind (README, "The API document"):
 * - 408 (the request took over 30 s to arrive) and 431 (headers over 16 KB), for every call: Node's
 *   parser answers them, with `Connection: close`;
 * - 400 (validation) when the call takes input; for a method with a body, 400 also for a body that
 *   is not well-formed JSON, 413 over the body limit and 415 for another type, whether or not the
 *   call reads one;
 * - 414 when a path parameter is over the router's limit (the longest any call declares);
 * - 401 when it needs a session;
 * - 503 with Retry-After when the database (or a provider) does not answer for a moment, except
 *   on liveness.
 * `errors` adds the call's own.
 */
export function defineEndpoint<R extends Route, S extends EndpointSchemas>(
  route: R,
  schemas: S,
): R &
  S & { responses: S['success'] & Partial<Record<ErrorStatus, typeof ErrorBodySchema>> } & {
    successStatus: SuccessStatus;
  } {
  const errorStatuses = new Set<ErrorStatus>([...(schemas.errors ?? []), 408, 431]);
  const hasBody = METHODS_WITH_A_BODY.has(route.method);
  if (hasBody || schemas.params || schemas.query) errorStatuses.add(400);
  if (hasBody) {
    errorStatuses.add(413);
    errorStatuses.add(415);
  }
  if (schemas.params) errorStatuses.add(414);
  if (route.auth) errorStatuses.add(401);
  if (!schemas.readsNothingBehind) errorStatuses.add(503);
  const errorResponses: Partial<Record<ErrorStatus, typeof ErrorBodySchema>> = {};
  for (const status of [...errorStatuses].sort()) errorResponses[status] = ErrorBodySchema;
  const successStatuses = Object.keys(schemas.success).map(Number) as SuccessStatus[];
  const successStatus = successStatuses[0];
  if (successStatuses.length !== 1 || successStatus === undefined) {
    throw new Error(`${route.method} ${route.path}: describe exactly one success status`);
  }
  return {
    ...route,
    ...schemas,
    responses: { ...schemas.success, ...errorResponses },
    successStatus,
  };
}

type SchemaOf<E, K extends string> = E extends Record<K, infer S extends z.$ZodType> ? S : never;
type SuccessSchemaOf<E extends Endpoint> = E['success'][keyof E['success']];

/** What a client sends: the schemas' input types (before trimming and defaults). */
export type RequestOf<E extends Endpoint> = ([SchemaOf<E, 'params'>] extends [never]
  ? unknown
  : { params: z.input<SchemaOf<E, 'params'>> }) &
  ([SchemaOf<E, 'query'>] extends [never] ? unknown : { query: z.input<SchemaOf<E, 'query'>> }) &
  ([SchemaOf<E, 'body'>] extends [never] ? unknown : { body: z.input<SchemaOf<E, 'body'>> });

/** What a client receives on success. */
export type ResponseOf<E extends Endpoint> =
  SuccessSchemaOf<E> extends z.$ZodType ? z.output<SuccessSchemaOf<E>> : never;

/** What the server's handler receives, validated and transformed. */
export type ParsedRequestOf<E extends Endpoint> = {
  params: [SchemaOf<E, 'params'>] extends [never] ? unknown : z.output<SchemaOf<E, 'params'>>;
  query: [SchemaOf<E, 'query'>] extends [never] ? unknown : z.output<SchemaOf<E, 'query'>>;
  body: [SchemaOf<E, 'body'>] extends [never] ? unknown : z.output<SchemaOf<E, 'body'>>;
};

/** What the server's handler returns on success, before serialisation. */
export type ReplyOf<E extends Endpoint> =
  SuccessSchemaOf<E> extends z.$ZodType ? z.input<SuccessSchemaOf<E>> : never;
