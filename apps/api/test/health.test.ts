import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { captureLog, LOG_LEVEL } from './support/log-capture';
import { startTcpProxy, type TcpProxy, unusedPort } from './support/tcp-proxy';
import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';
import { testEnv } from './support/test-env';

/** `url` with its host and port replaced by a relay's on loopback. */
function through(url: string, proxy: TcpProxy): string {
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(proxy.port);
  return relayed.toString();
}

async function waitForStatus(app: FastifyInstance, url: string, status: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await app.inject({ method: 'GET', url });
    if (response.statusCode === status || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.each(testDatabaseKinds)('GET /api/health and /api/ready on $name', (kind) => {
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

  it('answers 200 {"status":"ok"} to both while the database answers', async () => {
    for (const url of ['/api/health', '/api/ready']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ status: 'ok' });
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers unknown API routes with the error shape', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/no-such-call?x=1' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      statusCode: 404,
      error: 'Not Found',
      // A fixed text: the path is the caller's own, and repeating it echoes whatever was sent.
      message: 'Not found',
    });
  });

  it('is not ready once the database stops answering, yet still alive', async () => {
    await app.database.db.destroy();
    const ready = await app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is not answering',
    });
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
  });
});

describe.runIf(testEnv.postgresUrl)('GET /api/ready through a PostgreSQL outage', () => {
  const kind = testDatabaseKinds.find(({ name }) => name === 'PostgreSQL')!;
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await kind.create();
    const url = new URL(database.env.DATABASE_URL!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    app = await buildTestApp(database, {
      env: { DATABASE_URL: through(database.env.DATABASE_URL!, proxy) },
    });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await database.drop();
  });

  it('answers 503 while PostgreSQL is unreachable and 200 again when it is back, without a restart', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);

    await proxy.cut();
    const down = await waitForStatus(app, '/api/ready', 503);
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ message: 'The database is not answering' });
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);

    await proxy.restore();
    expect((await waitForStatus(app, '/api/ready', 200)).statusCode).toBe(200);
  });
});

describe('GET /api/ready with REDIS_URL', () => {
  const kind = testDatabaseKinds[0]!;
  let database: TestDatabase;
  beforeAll(async () => {
    database = await kind.create();
  });
  afterAll(() => database.drop());

  it('answers 503 naming Redis when nothing listens at REDIS_URL', async () => {
    const log = captureLog('warn');
    const app = await buildTestApp(database, {
      env: { REDIS_URL: `redis://127.0.0.1:${await unusedPort()}` },
      logger: log.logger,
    });
    try {
      const response = await app.inject({ method: 'GET', url: '/api/ready' });
      expect(response.statusCode).toBe(503);
      expect(response.json()).toMatchObject({ message: 'Redis is not answering' });
      // Answered once: no second answer is attempted and logged as a warning.
      expect(log.find(LOG_LEVEL.warn, /./).map((line) => line.msg)).toEqual([
        'web app not built (/nonexistent-web-root/index.html is missing): only the API is served',
      ]);
    } finally {
      await app.close();
    }
  });

  it.runIf(testEnv.redisUrl)(
    'follows Redis going away and coming back, without a restart',
    async () => {
      const url = new URL(testEnv.redisUrl!);
      const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
      const app = await buildTestApp(database, {
        env: { REDIS_URL: through(testEnv.redisUrl!, proxy), REDIS_KEY_PREFIX: 'test-ready' },
      });
      try {
        expect((await waitForStatus(app, '/api/ready', 200)).statusCode).toBe(200);
        await proxy.cut();
        const down = await waitForStatus(app, '/api/ready', 503);
        expect(down.json()).toMatchObject({ message: 'Redis is not answering' });
        await proxy.restore();
        expect((await waitForStatus(app, '/api/ready', 200)).statusCode).toBe(200);
      } finally {
        await app.close();
        await proxy.close();
      }
    },
  );
});
