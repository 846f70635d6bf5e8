import { STATUS_CODES } from 'node:http';

import type { ErrorBody } from '@kegel/contract';
import type { PageLocale } from '@kegel/contract/i18n';
import { translateMessage, translatorFor } from '@kegel/contract/i18n/catalogs';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnreachable } from '../db/database';
import { AppError, ProviderError, RequestValidationError } from '../errors';
import { answerInCallersLanguage } from '../http/request-locale';
import { pathOf } from '../http/request-log';
import { requiredMessage } from '../http/request-validation';
import { routerErrorOf } from '../http/router-errors';

/**
 * One error shape for the whole API, the contract's ErrorBody: `{ statusCode, error, message }`.
 * The web app and the mobile app both read it, so nothing may answer in another shape.
 * Validation problems become an array of messages, one per field problem, worded by the contract,
 * and `fields` names the field of each (http/request-validation.ts).
 * Fastify's own errors (router, body parser) get texts of ours: theirs repeat the request (a path,
 * a content type) and carry a `code` the contract does not know.
 * A 5xx never shows its text (no stack, no SQL); it is logged with the request instead.
 * A database that cannot be reached is a 503 with Retry-After, not a 500: nothing is wrong with
 * the call, it is worth repeating in a moment, and the web app keeps the session on a 5xx.
 * A provider's failure (Stripe refusing our key, rate limiting us, down) is likewise a 502, or a
 * 503 when temporary, never the provider's own status: its 401 would sign the member out.
 * Every text is answered in the caller's language (Accept-Language, http/request-locale.ts): the
 * contract's and ours are in the catalogs' `messages` namespace (ours as `api.*`); zod's own words
 * for malformed input ("Invalid input: expected string") and the status's reason phrase in `error`
 * stay English, as the HTTP and zod vocabularies a developer searches for.
 */
/** The message of every 5xx that is not our own AppError: it tells nothing of the cause. */
const GENERIC_SERVER_ERROR = 'Something went wrong on our side. Please try again.';
/** How soon a call that met a provider's temporary failure is worth repeating. */
const PROVIDER_RETRY_AFTER_SECONDS = 5;

/**
 * Fastify's errors below the handler, by code, in words for the caller that repeat nothing of the
 * request. JSON.parse's own text quotes the body, so a body that does not parse is one of them.
 */
const PARAMETER_TOO_LONG_MESSAGE = 'A path parameter is longer than any call takes.';
const BODY_LENGTH_MISMATCH_MESSAGE = 'The request body’s length differs from its Content-Length.';
const FRAMEWORK_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_BAD_URL: 'The path holds a malformed %-encoding.',
  FST_ERR_MAX_PARAM_LENGTH: PARAMETER_TOO_LONG_MESSAGE,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'The request body must be JSON (Content-Type: application/json).',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is larger than this call takes.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty, though its Content-Type says JSON.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: BODY_LENGTH_MISMATCH_MESSAGE,
  // @fastify/compress, which also reads compressed request bodies.
  FST_CP_ERR_INVALID_CONTENT_ENCODING: 'The request body’s Content-Encoding is not one we read.',
  FST_CP_ERR_INVALID_CONTENT: 'The request body could not be decompressed.',
};

/**
 * The words of a 4xx from Fastify or one of its plugins (their codes start with FST_) that the
 * table above does not know: theirs may quote the request, so the status's own.
 */
function frameworkMessageOf(error: FastifyError, statusCode: number): string | undefined {
  const known = FRAMEWORK_ERROR_MESSAGES[error.code];
  if (known !== undefined) return known;
  const isFrameworkError = typeof error.code === 'string' && error.code.startsWith('FST_');
  if (!isFrameworkError || statusCode >= 500 || error instanceof AppError) return undefined;
  return STATUS_CODES[statusCode] ?? 'Error';
}
export const NOT_FOUND_MESSAGE = 'Not found';
const METHOD_NOT_ALLOWED_MESSAGE = 'This path does not answer this method: see the Allow header.';

export const errorHandlerPlugin = fp(
  async function errorHandlerPlugin(app) {
    app.setErrorHandler(function handleError(error: FastifyError, request, reply) {
      if (error instanceof RequestValidationError) {
        const messages = [...new Set(error.fields.map(({ message }) => message))];
        return sendError(reply, 400, messages, [...error.fields]);
      }
      // A caller who hung up before his body arrived: the request stream's own ECONNRESET
      // ("aborted"), which would read as the database's. No outage, and nobody left to answer.
      if (request.raw.readableAborted) {
        request.log.info('the caller hung up before the body arrived');
        return sendError(reply, 400, BODY_LENGTH_MISMATCH_MESSAGE);
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
      const frameworkMessage = frameworkMessageOf(error, statusCode);
      if (frameworkMessage !== undefined) return sendError(reply, statusCode, frameworkMessage);
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
  fields?: ErrorBody['fields'],
): FastifyReply {
  const locale = answerInCallersLanguage(reply.request, reply);
  // A text that is a field's problem is worded as the field's is (a templated one included).
  const translated = (text: string) => {
    const problem = fields?.find((field) => field.message === text);
    return problem ? translatedFieldMessage(problem, locale) : translateMessage(text, locale);
  };
  const body: ErrorBody = {
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message: typeof message === 'string' ? translated(message) : message.map(translated),
    ...(fields
      ? {
          fields: fields.map((problem) => ({
            field: problem.field,
            message: translatedFieldMessage(problem, locale),
          })),
        }
      : {}),
  };
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}

/**
 * A field's problem in `locale`: the contract's texts by the catalog, and the one worded with its
 * field (`newPassword is required`) by its template, the field's name kept as the request spells it.
 */
function translatedFieldMessage(
  problem: { field: string; message: string },
  locale: PageLocale,
): string {
  if (problem.message === requiredMessage(problem.field)) {
    return translatorFor(locale)('messages', 'api.fieldRequired', { field: problem.field });
  }
  return translateMessage(problem.message, locale);
}

/**
 * What the not-found handler answers (API routes and the web app alike): a router error routed
 * here (http/router-errors.ts), a 414 for a parameter over the router's limit that a wildcard
 * route took (the web app's GET /*), a 405 naming the methods in Allow when the path is served with
 * others (plugins/allowed-methods.ts), else a 404. The text is fixed: it repeats no path.
 */
export function sendRouteNotFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const routerError = routerErrorOf(request.raw);
  if (routerError) return reply.send(routerError);
  const path = pathOf(request.url);
  if (request.server.isOverParameterLimit(request.method, path)) {
    return sendError(reply, 414, PARAMETER_TOO_LONG_MESSAGE);
  }
  const allowed = request.server.allowedMethods(path);
  if (allowed.length > 0) {
    return sendError(reply.header('allow', allowed.join(', ')), 405, METHOD_NOT_ALLOWED_MESSAGE);
  }
  return sendError(reply, 404, NOT_FOUND_MESSAGE);
}
