// The OpenAPI document is what the mobile app's developers build against: it must describe every
// route the API serves, with its schemas, and the reference page must work without a network.
import { type Endpoint, endpoints } from '@kegel/contract';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  security?: unknown[];
}
type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
};

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
    // README, "The API document": a liveness and a readiness probe and the plans answer no 4xx
    // (nothing to refuse); opening an unsubscribe link answers 303, its success. (A development
    // server's document also warns that its server is localhost: PUBLIC_URL names the real one.)
    expect(described.filter((line) => line.startsWith('warn')).sort()).toEqual([
      'warn operation-2xx-response: #/paths/~1api~1users~1unsubscribe/get/responses',
      'warn operation-4xx-response: #/paths/~1api~1health/get/responses',
      'warn operation-4xx-response: #/paths/~1api~1payments~1stripe~1plans/get/responses',
      'warn operation-4xx-response: #/paths/~1api~1ready/get/responses',
    ]);
  });

  it('gives the request and response schemas of a call, its errors and its session', async () => {
    const changePassword = (await readDocument()).paths['/api/auth/change-password']?.post;
    expect(changePassword?.security).toEqual([{ bearerAuth: [] }]);
    const body = changePassword?.requestBody?.content['application/json']?.schema;
    expect(body).toMatchObject({
      type: 'object',
      properties: { oldPassword: { type: 'string' }, newPassword: { minLength: 8 } },
      required: ['oldPassword', 'newPassword'],
    });
    expect(Object.keys(changePassword?.responses ?? {}).sort()).toEqual([
      '200',
      '400',
      '401',
      '429',
    ]);
    expect(changePassword?.responses['401']?.content?.['application/json']?.schema).toMatchObject({
      properties: { statusCode: {}, error: {}, message: {} },
    });
    // A logout with what is not a refresh token of ours is refused like any other call.
    const logout = (await readDocument()).paths['/api/auth/logout']?.post;
    expect(Object.keys(logout?.responses ?? {}).sort()).toEqual(['200', '400', '401', '429']);
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
});
