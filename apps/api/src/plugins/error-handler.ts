import { STATUS_CODES } from 'node:http';

import type { ErrorBody } from '@kegel/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnreachable } from '../db/database';
import { AppError, ProviderError } from '../errors';
import { pathOf } from '../http/request-log';

/**
 * One error shape for the whole API, the contract's ErrorBody: `{ statusCode, error, message }`.
 * The web app and the mobile app both read it, so nothing may answer in another shape.
 * Validation problems become an array of messages, one per field problem, worded by the contract.
 * A 5xx never shows its text (no stack, no SQL); it is logged with the request instead.
 * A database that cannot be reached is a 503 with Retry-After, not a 500: nothing is wrong with
 * the call, it is worth repeating in a moment, and the web app keeps the session on a 5xx.
 * A provider's failure (Stripe refusing our key, rate limiting us, down) is likewise a 502, or a
 * 503 when temporary, never the provider's own status: its 401 would sign the member out.
 */
/** The message of every 5xx that is not our own AppError: it tells nothing of the cause. */
const GENERIC_SERVER_ERROR = 'Something went wrong on our side. Please try again.';
/** How soon a call that met a provider's temporary failure is worth repeating. */
const PROVIDER_RETRY_AFTER_SECONDS = 5;

export const errorHandlerPlugin = fp(
  async function errorHandlerPlugin(app) {
    app.setErrorHandler(function handleError(error: FastifyError, request, reply) {
      if (hasZodFastifySchemaValidationErrors(error)) {
        const messages = [
          ...new Set(error.validation.map((issue) => issue.message ?? 'Invalid value')),
        ];
        return sendError(reply, 400, messages);
      }
      if (isDatabaseUnreachable(error)) {
        request.log.warn({ err: error.message }, 'database unreachable: answered 503');
        reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendError(reply, 503, GENERIC_SERVER_ERROR);
      }
      if (error instanceof ProviderError) {
        request.log.error(
          { err: error.cause, provider: error.provider, isTemporary: error.isTemporary },
          `${error.provider} failed: answered ${error.isTemporary ? 503 : 502}`,
        );
        if (!error.isTemporary) return sendError(reply, 502, GENERIC_SERVER_ERROR);
        reply.header('retry-after', String(PROVIDER_RETRY_AFTER_SECONDS));
        return sendError(reply, 503, GENERIC_SERVER_ERROR);
      }
      const statusCode = error.statusCode ?? 500;
      const retryAfterSeconds = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
      // Our own errors are written for the caller, 503 "busy" included.
      if (statusCode >= 500 && !(error instanceof AppError)) {
        request.log.error({ err: error }, 'request failed');
        return sendError(reply, statusCode, GENERIC_SERVER_ERROR);
      }
      return sendError(reply, statusCode, error.message);
    });
  },
  { name: 'error-handler' },
);

export function sendError(
  reply: FastifyReply,
  statusCode: number,
  message: ErrorBody['message'],
): FastifyReply {
  const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}

/** The 404 of a path nobody serves, in the error shape (API routes and the web app alike). */
export function sendRouteNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, 404, `Route ${request.method} ${pathOf(request.url)} not found`);
}
