// The API described as OpenAPI 3.1 at /api/openapi.json, generated from the same contract objects
// the routes are registered from, and a reference page at /api/docs (Swagger UI, served from
// node_modules: no CDN). The mobile app's developers build against this document.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
} from 'fastify-type-provider-zod';

import { finishDocument } from '../api-document/finish-document';
import { namedContractSchemas } from '../api-document/named-schemas';
import type { OpenApiDocument } from '../api-document/tidy-components';

export const API_DOCUMENT_PATH = '/api/openapi.json';
export const API_REFERENCE_PATH = '/api/docs';

export interface ApiDocsOptions {
  publicUrl: string;
  /**
   * Whether a token given to Authorize is kept across reloads (in the page origin's
   * localStorage). Not in production: that origin is the web app's, where a member's own tokens
   * live, and a developer's convenience is no reason to keep another one there.
   */
  keepsAuthorization: boolean;
}

export const apiDocsPlugin = fp<ApiDocsOptions>(
  async function apiDocsPlugin(app, { publicUrl, keepsAuthorization }) {
    const schemaRegistry = namedContractSchemas();
    const withNamedSchemas = createJsonSchemaTransformObject({ schemaRegistry });
    await app.register(fastifySwagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Kegel Coach API',
          version: '1',
          // The product's own API, for its web and iPhone apps: no open licence.
          license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
          description: [
            'The API of the Kegel Coach web app and mobile app.',
            'Every error, from any layer (HTTP parser, router, body parser, validation, the call itself), has one shape, the `Error` schema: `{ statusCode, error, message }`, where `message` is a string or, for invalid input, an array of strings (one per problem), and `fields` names the field of each problem (`[{ field, message }]`, `field` being the dotted path in the body, query or path). No error repeats what the request sent.',
            "Texts for people (an error's `message` and `fields[].message`, a success's `message`) are in the language of `Accept-Language`: English (`en`, the default and the texts this document shows), Spanish (`es`) or German (`de`), with `Content-Language` naming it and `Vary: Accept-Language`. zod's own words for malformed input and the `error` reason phrase stay English. A new account (registration, Google, Apple, a guest purchase) keeps the request's language as its `locale`; mails go out in it.",
            'A path nobody serves answers 404; a path served for other methods answers 405 with `Allow` listing them. Bodies are JSON only (415 otherwise), at most 256 KB (413).',
            'Signed-in calls take `Authorization: Bearer <access token>`; an access token lasts 15 minutes and `POST /api/auth/refresh` renews the pair. To try the signed-in calls here: run `login` (Try it out), copy its `accessToken`, and give it to Authorize.',
          ].join('\n\n'),
        },
        servers: [{ url: publicUrl }],
        components: {
          securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
      },
      transform: createJsonSchemaTransform({ schemaRegistry }),
      transformObject: (document) =>
        finishDocument(withNamedSchemas(document) as unknown as OpenApiDocument) as ReturnType<
          typeof withNamedSchemas
        >,
    });
    await app.register(fastifySwaggerUi, {
      routePrefix: API_REFERENCE_PATH,
      // Swagger UI would otherwise send the document to swagger.io's validator.
      validatorUrl: false,
      // The plain layout: no Fastify-branded bar offering to explore other documents.
      // "Try it out" is on for every call: a developer signs in with POST /api/auth/login, gives
      // the access token to Authorize, and tries the signed-in calls.
      uiConfig: {
        docExpansion: 'list',
        deepLinking: true,
        layout: 'BaseLayout',
        tryItOutEnabled: true,
        persistAuthorization: keepsAuthorization,
        displayOperationId: true,
        displayRequestDuration: true,
      },
      theme: { title: 'Kegel Coach API' },
      // Its own policy (the web app's names the sign-in scripts): Swagger UI's bundle and
      // stylesheets are files of its own, and its icons are data: images.
      staticCSP:
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    });
    app.get(API_DOCUMENT_PATH, { schema: { hide: true } }, async function serveApiDocument() {
      return app.swagger();
    });
  },
  { name: 'api-docs' },
);
