// Request bodies in JSON: parsed as Fastify parses them (an empty or malformed body, or a
// `__proto__` key, is a 400), then refused with 400 when they hold what JSON allows but no call
// of ours takes: a key named twice in one object, or a NUL character in a string
// (http/json-body-hazards.ts says why). Every route gets it, so no call has to remember.
// Fastify's other default parser, for text/plain, goes: no call takes text, and a text body then
// failed as "expected object, received string" (400) where it is a wrong type (415).
import fp from 'fastify-plugin';

import { AppError } from '../errors';
import { findJsonBodyHazard } from '../http/json-body-hazards';

/**
 * application/json, with or without parameters (a charset). A pattern rather than the string
 * 'application/json' on purpose: Fastify tries a scope's string parsers before any pattern, so a
 * route that needs the exact bytes (the Stripe webhook, whose signature covers them) can still
 * claim 'application/json' in its own scope.
 */
const JSON_MEDIA_TYPE = /^application\/json(?:;|$)/;

export const jsonBodyPlugin = fp(
  async function jsonBodyPlugin(app) {
    const parseAsFastifyDoes = app.getDefaultJsonParser(
      app.initialConfig.onProtoPoisoning ?? 'error',
      app.initialConfig.onConstructorPoisoning ?? 'error',
    );
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser(
      JSON_MEDIA_TYPE,
      { parseAs: 'string' },
      function parseJsonBody(request, body, done) {
        // A string, as asked for (parseAs); the types also allow a Buffer.
        const text = typeof body === 'string' ? body : body.toString('utf8');
        // Fastify's own parser answers through the callback (its type also allows a promise).
        void parseAsFastifyDoes(request, text, (error, parsed: unknown) => {
          if (error) return done(error, undefined);
          const hazard = findJsonBodyHazard(text);
          if (hazard) return done(new AppError(400, hazard), undefined);
          done(null, parsed);
        });
      },
    );
  },
  { name: 'json-body' },
);
