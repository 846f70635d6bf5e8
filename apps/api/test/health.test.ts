import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

describe.each(testDatabaseKinds)('GET /api/health on $name', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await kind.create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('answers 200 {"status":"ok"} while the database answers', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok' });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers unknown API routes with the error shape', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/no-such-call?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Route GET /api/no-such-call not found',
    });
  });

  it('answers 503 once the database stops answering', async () => {
    await app.database.db.destroy();
    const response = await app.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is not answering',
    });
  });
});
