import { STATUS_CODES } from 'node:http';

import type { ErrorBody } from '@kegel/contract';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';

import { AppError } from '../errors';
import { pathOf } from '../http/request-log';

/**
 * One error shape for the whole API, the contract's ErrorBody: `{ statusCode, error, message }`.
 * The web app and the mobile app both read it, so nothing may answer in another shape.
 * Validation problems become an array of messages, one per field problem, worded by the contract.
 * A 5xx never shows its text (no stack, no SQL); it is logged with the request instead.
 */
export const errorHandlerPlugin = fp(
  async function errorHandlerPlugin(app) {
    app.setErrorHandler(function handleError(error: FastifyError, request, reply) {
      if (hasZodFastifySchemaValidationErrors(error)) {
        const messages = [
          ...new Set(error.validation.map((issue) => issue.message ?? 'Invalid value')),
        ];
        return sendError(reply, 400, messages);
      }
      const statusCode = error.statusCode ?? 500;
      const retryAfterSeconds = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
      if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
      // Our own errors are written for the caller, 503 "busy" included.
      if (statusCode >= 500 && !(error instanceof AppError)) {
        request.log.error({ err: error }, 'request failed');
        return sendError(reply, statusCode, 'Something went wrong on our side. Please try again.');
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
