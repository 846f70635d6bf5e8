// Registers a route from its contract object, so a path, a payload or a status is spelled once:
// the contract's schemas validate the request and serialise every answer, a call that needs a
// session gets `app.authenticate`, and a success is answered with the contract's status.
import type { Endpoint, ParsedRequestOf, ReplyOf } from '@kegel/contract';
import { translateMessage } from '@kegel/contract/i18n/catalogs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { answerInCallersLanguage } from './request-locale';

/** A check a call makes after its session's: the support desk's operator guard. */
export type AfterSignInCheck = (request: FastifyRequest) => Promise<void>;

export type EndpointHandler<E extends Endpoint> = (
  request: Omit<FastifyRequest, 'params' | 'query' | 'body'> & ParsedRequestOf<E>,
  reply: FastifyReply,
) => Promise<ReplyOf<E> | FastifyReply>;

export function serveEndpoint<E extends Endpoint>(
  app: FastifyInstance,
  endpoint: E,
  handler: EndpointHandler<E>,
  /** Run after `app.authenticate`, in order (only for calls that need a session). */
  checks: readonly AfterSignInCheck[] = [],
): void {
  if (checks.length > 0 && !endpoint.auth) {
    throw new Error(`${endpoint.method} ${endpoint.path}: checks after sign-in need a session`);
  }
  for (const url of [endpoint.path, ...(endpoint.aliases ?? [])]) {
    const isAlias = url !== endpoint.path;
    app.route({
      method: endpoint.method,
      url,
      schema: {
        // One operation per call in the API document: an alias (a path the specification keeps,
        // such as the capitalised /auth/oauth/Google/...) answers the same, and is named in the
        // call's description instead of becoming a second operation (...VerifyToken2).
        ...(isAlias ? { hide: true } : { operationId: endpoint.operationId }),
        summary: endpoint.summary,
        description: describedWithAliases(endpoint),
        tags: [endpoint.tag],
        // Bearer for signed-in calls; none, said explicitly, for public ones.
        security: endpoint.auth ? [{ bearerAuth: [] }] : [],
        ...(endpoint.params ? { params: endpoint.params } : {}),
        ...(endpoint.query ? { querystring: endpoint.query } : {}),
        ...(endpoint.body ? { body: endpoint.body } : {}),
        response: endpoint.responses,
      },
      ...(endpoint.auth ? { preHandler: [app.authenticate, ...checks] } : {}),
      handler: async function handle(request, reply) {
        const answer = await handler(request as Parameters<EndpointHandler<E>>[0], reply);
        // A handler that answered itself returns its reply, which is a thenable: the await above
        // yields what it resolves to (nothing), not the reply.
        if (answer === reply || reply.sent) return reply;
        return reply.code(endpoint.successStatus).send(inCallersLanguage(request, reply, answer));
      },
    });
  }
}

/**
 * A success that says something (`{ message: 'Signed out' }`, the contract's or one of ours in
 * the catalogs' `api.*`) says it in the caller's language; other answers pass as they are.
 */
function inCallersLanguage<T>(request: FastifyRequest, reply: FastifyReply, answer: T): T {
  if (!hasMessage(answer)) return answer;
  const locale = answerInCallersLanguage(request, reply);
  return { ...answer, message: translateMessage(answer.message, locale) };
}

function hasMessage(answer: unknown): answer is { message: string } {
  return (
    typeof answer === 'object' &&
    answer !== null &&
    typeof (answer as { message?: unknown }).message === 'string'
  );
}

function describedWithAliases(endpoint: Endpoint): string | undefined {
  const aliases = endpoint.aliases ?? [];
  if (aliases.length === 0) return endpoint.description;
  const also = `Also answers at ${aliases.map((alias) => `\`${alias}\``).join(', ')}.`;
  return endpoint.description ? `${endpoint.description} ${also}` : also;
}
