// The unsubscribe link of the reminder mails. POST turns reminders off (what a mail client does
// on "Unsubscribe", RFC 8058: no session, the body `List-Unsubscribe=One-Click` form-encoded).
// GET turns nothing off: a person who opens the link, or a scanner that fetches every link of a
// mail, is sent to the page that asks first (/account/unsubscribe).
import {
  endpoints,
  ErrorBodySchema,
  UnsubscribeQuerySchema,
  unsubscribeMessages,
} from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import * as z from 'zod/mini';
import type { Kysely } from 'kysely';

import type { Database } from '../../db/schema';
import { serveEndpoint } from '../../http/serve-endpoint';
import { unsubscribe } from './unsubscribe';

export const unsubscribeRoutes: FastifyPluginAsyncZod<{
  db: Kysely<Database>;
  unsubscribeKey: Buffer;
  publicUrl: string;
}> = async function unsubscribeRoutes(app, { db, unsubscribeKey, publicUrl }) {
  // Form bodies here only (this plugin's scope): every other call takes JSON.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 1024 },
    function parseFormBody(_request, body, done) {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      done(null, Object.fromEntries(new URLSearchParams(text)));
    },
  );

  serveEndpoint(app, endpoints.unsubscribe, async function oneClickUnsubscribe(request) {
    await unsubscribe(db, unsubscribeKey, request.query.token);
    return { message: unsubscribeMessages.done };
  });

  app.get(
    endpoints.unsubscribe.path,
    {
      schema: {
        operationId: 'openUnsubscribeLink',
        summary:
          'Opening an unsubscribe link turns nothing off: 303 to the page /account/unsubscribe, which asks first.',
        tags: [endpoints.unsubscribe.tag],
        security: [],
        querystring: UnsubscribeQuerySchema,
        response: {
          303: z.null(),
          400: ErrorBodySchema,
        },
      },
    },
    async function openUnsubscribeLink(request, reply) {
      const query = new URLSearchParams({ token: request.query.token });
      return reply
        .header('cache-control', 'no-store')
        .redirect(`${publicUrl}/account/unsubscribe?${query.toString()}`, 303);
    },
  );
};
