// The errors the router raises before any route is found: a malformed %-encoding in the path
// (FST_ERR_BAD_URL, 400) and a path parameter longer than the router takes
// (FST_ERR_MAX_PARAM_LENGTH, 414). Fastify answers them on its own, outside every hook and the
// error handler: another body shape, an extra `code`, no security headers, and the whole path
// repeated back. Its `frameworkErrors` option hands them over instead, but with a request no hook
// has run on.
//
// So such a request is routed again, to a path nobody serves, with its error attached: it then
// passes every hook like any other answer (security headers, the request log, metrics, the
// shutdown's Connection: close), reaches the not-found handler, which finds the error and sends
// it (plugins/error-handler.ts, sendRouteNotFound), and the one error handler words the answer.
import type { IncomingMessage } from 'node:http';

import type { FastifyError, FastifyInstance, FastifyServerOptions } from 'fastify';

/** A path no route serves, under /api so that the API's not-found handler answers it. */
const ROUTER_ERROR_PATH = '/api/.router-error';

/** A request routed again: its router error, and its id and path from the first routing. */
interface RoutedAgain {
  error: FastifyError;
  id: string;
  url: string;
}

const routedAgain = new WeakMap<IncomingMessage, RoutedAgain>();

/** The router's error of a request routed again by `frameworkErrorsOf`, if it is one. */
export function routerErrorOf(request: IncomingMessage): FastifyError | undefined {
  return routedAgain.get(request)?.error;
}

/** The path the client asked for, where the request was routed again (the log names it). */
export function requestedUrlOf(request: IncomingMessage): string | undefined {
  return routedAgain.get(request)?.url;
}

let requestCount = 0;

/**
 * Fastify's `genReqId`: a request routed again keeps the id of its first routing, so the log
 * shows one request; any other gets the next of Fastify's own kind (req-1, req-2…).
 */
export function requestIdOf(request: IncomingMessage): string {
  const again = routedAgain.get(request);
  if (again) return again.id;
  requestCount += 1;
  return `req-${requestCount.toString(36)}`;
}

/**
 * Fastify's `frameworkErrors` option. `app` is read when a request fails, so the option can be
 * given to the very call that makes the server.
 */
export function frameworkErrorsOf(
  app: () => FastifyInstance,
): NonNullable<FastifyServerOptions['frameworkErrors']> {
  return function routeAgainWithError(error, request, reply) {
    routedAgain.set(request.raw, { error, id: String(request.id), url: request.raw.url ?? '' });
    // A path the router takes, so the second routing cannot fail in its turn.
    request.raw.url = ROUTER_ERROR_PATH;
    app().routing(request.raw, reply.raw);
  };
}
