import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isDatabaseUnreachable } from '../src/db/database';
import { getProfile, post, registerAndLogin } from './support/accounts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy';
import { buildTestApp, uniqueEmail } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';
import { testEnv } from './support/test-env';

/** An error as node-postgres builds it: a message, and a code for socket errors and SQLSTATEs. */
function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code ? { code } : {});
}

describe('telling a database that cannot be reached from a query that went wrong', () => {
  it.each([
    ['a refused connection', pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', pgError('read ECONNRESET', 'ECONNRESET')],
    ['a lost connection', pgError('Connection terminated unexpectedly')],
    ['a connect timeout', pgError('Connection terminated due to connection timeout')],
    ['a full pool', pgError('timeout exceeded when trying to connect')],
    [
      'an administrator shutdown',
      pgError('terminating connection due to administrator command', '57P01'),
    ],
    ['a server starting up', pgError('the database system is starting up', '57P03')],
    ['a connection exception', pgError('connection failure', '08006')],
    ['too many connections', pgError('sorry, too many clients already', '53300')],
    [
      'every address refused',
      new AggregateError([pgError('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
    ],
    ['a wrapped cause', new Error('cannot connect', { cause: pgError('x', 'ECONNREFUSED') })],
  ])('%s is the database being unreachable', (_name, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', pgError('duplicate key value', '23505')],
    ['a syntax error', pgError('syntax error at or near "selec"', '42601')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', 'Connection terminated unexpectedly'],
  ])('%s is not', (_name, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});

const postgres = testDatabaseKinds.find((kind) => kind.name === 'PostgreSQL');

/**
 * PostgreSQL going away under a running server (a restart, a failover, a network cut): the
 * server is reached through a proxy the test cuts and restores.
 */
describe.runIf(postgres)('API calls while PostgreSQL cannot be reached', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await postgres!.create();
    const server = new URL(testEnv.postgresUrl!);
    proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const throughProxy = new URL(database.env.DATABASE_URL!);
    throughProxy.hostname = '127.0.0.1';
    throughProxy.port = String(proxy.port);
    app = await buildTestApp(database, { env: { DATABASE_URL: throughProxy.toString() } });
  });
  afterAll(async () => {
    await app.close();
    await proxy.close();
    await database.drop();
  });

  it.each(['drop', 'refuse'] as const)(
    'answers 503 with Retry-After and the generic message while it is cut (%s), then 200 again without a restart',
    async (how) => {
      const email = uniqueEmail('database-outage');
      const password = 'correct horse';
      const { accessToken } = await registerAndLogin(app, email, password);
      expect((await getProfile(app, accessToken)).statusCode).toBe(200);

      await proxy.cut(how);
      const whileCut = await Promise.all([
        getProfile(app, accessToken),
        post(app, '/auth/local/login/email', { email, password }),
        app.inject({ method: 'GET', url: '/api/payments/stripe/plans' }),
      ]).finally(() => proxy.restore());
      for (const response of whileCut) {
        expect(response.statusCode, response.body).toBe(503);
        expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
        expect(response.json()).toEqual({
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'Something went wrong on our side. Please try again.',
        });
      }

      expect((await getProfile(app, accessToken)).statusCode).toBe(200);
      expect((await post(app, '/auth/local/login/email', { email, password })).statusCode).toBe(
        200,
      );
    },
  );
});
