// The OpenAPI document is what the mobile app's developers build against: it must describe every
// route the API serves, with its schemas, and the reference page must work without a network.
import { type Endpoint, endpoints } from '@kegel/contract';
import { callExamples } from '@kegel/contract/examples';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { apiDocsPlugin } from '../src/plugins/api-docs';
import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }
  >;
  parameters?: unknown[];
  security?: unknown[];
}
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
};

/** A schema, or the named shape its $ref points to. */
function resolved(document: OpenApiDocument, schema: unknown): unknown {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  return ref ? document.components.schemas[ref.replace('#/components/schemas/', '')] : schema;
}

const kind = testDatabaseKinds[0]!;
/** The contract's calls, by name. */
const calls: Array<[string, Endpoint]> = Object.entries(endpoints);

describe('the API document', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  const routes: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    database = await kind.create();
    app = await buildTestApp(database, {
      onRoute(route) {
        for (const method of [route.method].flat()) routes.push({ method, url: route.url });
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  async function readDocument(): Promise<OpenApiDocument> {
    const response = await app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    return response.json<OpenApiDocument>();
  }

  it('is OpenAPI 3.1', async () => {
    expect((await readDocument()).openapi).toBe('3.1.0');
  });

  it('describes every route under /api, with a summary and its responses', async () => {
    const document = await readDocument();
    const apiRoutes = routes.filter(
      ({ method, url }) =>
        url.startsWith('/api/') &&
        method !== 'HEAD' &&
        !url.startsWith('/api/docs') &&
        url !== '/api/openapi.json',
    );
    expect(apiRoutes.length).toBeGreaterThan(20);
    // An alias (a path the specification keeps, such as /auth/oauth/Google/…) is named in its
    // call's description rather than being a second operation.
    const aliases = new Set(
      calls.flatMap(([, call]) =>
        (call.aliases ?? []).map((alias) => `${call.method} /api${alias}`),
      ),
    );
    const undescribed = apiRoutes.filter(({ method, url }) => {
      if (aliases.has(`${method} ${url}`)) return false;
      const operation = document.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()];
      return !operation?.summary || Object.keys(operation.responses).length === 0;
    });
    expect(undescribed).toEqual([]);
    for (const [, call] of calls) {
      for (const alias of call.aliases ?? []) {
        const path = `/api${call.path}`.replace(/:(\w+)/g, '{$1}');
        const operation = document.paths[path]?.[call.method.toLowerCase()];
        expect(operation?.description, alias).toContain(`\`${alias}\``);
      }
    }
  });

  it('names every operation after its call in the contract, once, with its security', async () => {
    const document = await readDocument();
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [name, call] of calls) {
      const path = `/api${call.path}`.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[call.method.toLowerCase()];
      expect(operation?.operationId, name).toBe(name);
      // Bearer for a signed-in call; none, said explicitly, for a public one.
      expect(operation?.security, name).toEqual(call.auth ? [{ bearerAuth: [] }] : []);
    }
  });

  it("passes Redocly's recommended rules: no error, and only the warnings the README explains", async () => {
    const problems = await lintFromString({
      source: JSON.stringify(await readDocument()),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    const described = problems.map(
      (problem) => `${problem.severity} ${problem.ruleId}: ${problem.location[0]?.pointer ?? ''}`,
    );
    expect(described.filter((line) => line.startsWith('error'))).toEqual([]);
    // README, "The API document": opening an unsubscribe link answers 303, its success. (A
    // development server's document also warns that its server is localhost: PUBLIC_URL names
    // the real one.)
    expect(described.filter((line) => line.startsWith('warn')).sort()).toEqual([
      'warn operation-2xx-response: #/paths/~1api~1users~1unsubscribe/get/responses',
    ]);
  });

  it('gives the request and response schemas of a call, its errors and its session', async () => {
    const document = await readDocument();
    const changePassword = document.paths['/api/auth/change-password']?.post;
    expect(changePassword?.security).toEqual([{ bearerAuth: [] }]);
    const body = changePassword?.requestBody?.content['application/json']?.schema;
    expect(body).toEqual({ $ref: '#/components/schemas/ChangePasswordRequest' });
    expect(resolved(document, body)).toMatchObject({
      type: 'object',
      properties: { oldPassword: { type: 'string' }, newPassword: { minLength: 8 } },
      required: ['oldPassword', 'newPassword'],
    });
    // With a JSON body: 413 over the limit, 415 for another type; 503 when the database is away;
    // 408 and 431 from the HTTP layer, on every call.
    const everyCallWithABody = ['400', '408', '413', '415', '431', '503'];
    expect(Object.keys(changePassword?.responses ?? {}).sort()).toEqual(
      ['200', '401', '429', ...everyCallWithABody].sort(),
    );
    const errorShape = changePassword?.responses['401']?.content?.['application/json']?.schema;
    expect(errorShape).toEqual({ $ref: '#/components/schemas/Error' });
    expect(resolved(document, errorShape)).toMatchObject({
      properties: { statusCode: {}, error: {}, message: {} },
    });
    // A logout with what is not a refresh token of ours is refused like any other call.
    const logout = document.paths['/api/auth/logout']?.post;
    expect(Object.keys(logout?.responses ?? {}).sort()).toEqual(
      ['200', '401', '429', ...everyCallWithABody].sort(),
    );
    // A path parameter over the router's limit is 414, and the limit is the one declared.
    const endSession = document.paths['/api/users/sessions/{id}']?.delete;
    expect(endSession?.responses).toHaveProperty('414');
    expect(endSession?.parameters).toContainEqual(
      expect.objectContaining({ name: 'id', schema: expect.objectContaining({ maxLength: 255 }) }),
    );
  });

  it('names the shapes a client exchanges once, and keeps only those a call uses', async () => {
    const document = await readDocument();
    const named = Object.keys(document.components.schemas);
    for (const shape of ['Error', 'TokenPair', 'Profile', 'Plan', 'PurchaseItem', 'SessionItem']) {
      expect(named).toContain(shape);
    }
    // Every answer and body of a contract call is a reference to a named shape.
    for (const operation of Object.values(document.paths).flatMap((path) => Object.values(path))) {
      const media = [
        ...Object.values(operation.requestBody?.content ?? {}),
        ...Object.values(operation.responses).flatMap((answer) =>
          Object.values(answer.content ?? {}),
        ),
      ];
      for (const { schema } of media) {
        if (operation.operationId !== 'openUnsubscribeLink') {
          expect(schema, operation.operationId).toHaveProperty('$ref');
        }
      }
    }
    const text = JSON.stringify(document);
    const unused = named.filter((name) => !text.includes(`"#/components/schemas/${name}"`));
    expect(unused).toEqual([]);
  });

  it('says which answers carry Retry-After, the export its file name, Stripe its signature', async () => {
    const document = await readDocument();
    for (const operation of Object.values(document.paths).flatMap((path) => Object.values(path))) {
      for (const status of ['429', '503']) {
        const answer = operation.responses[status];
        if (answer)
          expect(answer.headers, `${operation.operationId} ${status}`).toHaveProperty(
            'Retry-After',
          );
      }
    }
    const exportAnswer = document.paths['/api/users/export']?.get?.responses['200'];
    expect(exportAnswer?.headers).toHaveProperty('Content-Disposition');
    const webhook = document.paths['/api/payments/stripe/webhook']?.post;
    expect(webhook?.parameters).toContainEqual(
      expect.objectContaining({ in: 'header', name: 'Stripe-Signature', required: true }),
    );
    expect(webhook?.requestBody?.content['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/StripeEvent',
    });
  });

  it("shows every call's example from the contract: parameters, body and answer", async () => {
    const document = await readDocument();
    const missing: string[] = [];
    for (const operation of Object.values(document.paths).flatMap((path) => Object.values(path))) {
      if (operation.operationId === 'openUnsubscribeLink') continue;
      const id = operation.operationId ?? '?';
      // Optional parameters (a cursor, a filter) may go without one.
      const parameters = (operation.parameters ?? []) as Array<{
        name: string;
        required?: boolean;
      }>;
      for (const parameter of parameters.filter(({ required }) => required)) {
        if (!('example' in parameter)) missing.push(`${id} ${parameter.name}`);
      }
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        if (!('example' in media)) missing.push(`${id} body ${type}`);
      }
      const success = Object.entries(operation.responses).find(([status]) =>
        status.startsWith('2'),
      );
      if (
        !success?.[1].content?.['application/json'] ||
        !('example' in success[1].content['application/json'])
      ) {
        missing.push(`${id} answer`);
      }
    }
    expect(missing).toEqual([]);
    const login = document.paths['/api/auth/local/login/email']?.post;
    expect(login?.requestBody?.content['application/json']).toMatchObject({
      example: callExamples.login.body,
    });
  });

  it('serves a reference page whose scripts come from this server', async () => {
    const page = await app.inject({ method: 'GET', url: '/api/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('swagger-ui');
    expect(page.body).not.toMatch(/src="https?:\/\//);
    const script = await app.inject({
      method: 'GET',
      url: '/api/docs/static/swagger-ui-bundle.js',
    });
    expect(script.statusCode).toBe(200);
  });

  it('keeps a token given to Authorize across reloads outside production only', async () => {
    const initializer = async (keepsAuthorization: boolean) => {
      const bare = Fastify();
      await bare.register(apiDocsPlugin, { publicUrl: 'http://localhost', keepsAuthorization });
      const script = await bare.inject({
        method: 'GET',
        url: '/api/docs/static/swagger-initializer.js',
      });
      await bare.close();
      return script.body.replace(/\s/g, '');
    };
    expect(await initializer(true)).toContain('"persistAuthorization":true');
    expect(await initializer(false)).toContain('"persistAuthorization":false');
    // The development server of this file keeps it.
    const served = await app.inject({
      method: 'GET',
      url: '/api/docs/static/swagger-initializer.js',
    });
    expect(served.body.replace(/\s/g, '')).toContain('"persistAuthorization":true');
  });
});
