// Every error, from whichever layer raises it (router, body parser, validation, handler), is
// answered by the one error handler: the contract's shape, no `code`, the security headers, and
// nothing of the request repeated back. A wrong method on a path that exists is a 405 with
// Allow, not a 404. (The errors raised below the router, on the socket, are in
// error-layers-socket.test.ts.)
import { ErrorBodySchema } from '@kegel/contract';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { clientErrorAnswer } from '../src/http/client-errors';
import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

const pglite = testDatabaseKinds[0]!;

/** The answer is the one error shape with this status, security headers included. */
function expectErrorShape(response: LightMyRequestResponse, statusCode: number): void {
  expect(response.statusCode, response.body).toBe(statusCode);
  const body: unknown = response.json();
  expect(ErrorBodySchema.safeParse(body).success, response.body).toBe(true);
  expect(body).toMatchObject({ statusCode });
  expect(body).not.toHaveProperty('code');
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
}

describe('errors from every layer', () => {
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await pglite.create();
    app = await buildTestApp(database);
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  describe('a wrong method on a path that exists', () => {
    it.each([
      ['GET', '/api/auth/local/login/email', 'POST'],
      ['DELETE', '/api/users/profile', 'GET, HEAD'],
      ['POST', '/api/payments/stripe/plans', 'GET, HEAD'],
      // Paths with parameters: the method is looked up as the router matches the path.
      ['GET', '/api/users/sessions/0b6f7a3e-1d2c-4c4e-9f3a-2b1e0c9d8a7f', 'DELETE'],
      ['PUT', '/api/payments/stripe/session/cs_test_1', 'GET, HEAD'],
      ['GET', '/api/users/passkeys/abc', 'DELETE, PATCH'],
      // A static path beside a parametric one answers for both.
      ['GET', '/api/users/sessions/revoke-others', 'DELETE, POST'],
      ['POST', '/api/users/preferences', 'GET, HEAD, PUT'],
    ])('%s %s answers 405 with Allow: %s', async (method, url, allow) => {
      const response = await app.inject({ method: method as 'GET', url });
      expectErrorShape(response, 405);
      expect(response.headers.allow).toBe(allow);
      expect(response.json()).toMatchObject({ error: 'Method Not Allowed' });
      expect(response.body).not.toContain(url);
    });

    it('still answers 404 for a path nobody serves, with any method, without repeating it', async () => {
      for (const method of ['GET', 'POST', 'DELETE'] as const) {
        const response = await app.inject({ method, url: '/api/no-such-call?secret=1' });
        expectErrorShape(response, 404);
        expect(response.headers.allow).toBeUndefined();
        expect(response.json()).toEqual({
          statusCode: 404,
          error: 'Not Found',
          message: 'Not found',
        });
      }
    });
  });

  describe('body parser errors', () => {
    const register = '/api/auth/local/register/email';

    it('answers 413 to a body over 256 KB', async () => {
      const payload = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(300 * 1024) });
      const response = await app.inject({
        method: 'POST',
        url: register,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expectErrorShape(response, 413);
    });

    it('answers 415 to a body that is not JSON, without naming the type sent', async () => {
      for (const contentType of [
        'text/plain',
        'multipart/form-data; boundary=secret-boundary',
        'application/x-www-form-urlencoded',
        'application/x-secret-type',
      ]) {
        const response = await app.inject({
          method: 'POST',
          url: register,
          headers: { 'content-type': contentType },
          payload: 'email=a%40example.com',
        });
        expectErrorShape(response, 415);
        expect(response.body, contentType).not.toContain('secret');
        expect(response.body, contentType).not.toContain(contentType.split(';')[0]);
      }
    });

    it('answers 400 to an empty JSON body, broken JSON and JSON that is no object', async () => {
      for (const payload of [
        '',
        '{"email":"secret-value',
        '{"email" secret}',
        'nul',
        '[1]',
        '42',
        '"secret"',
      ]) {
        const response = await app.inject({
          method: 'POST',
          url: register,
          headers: { 'content-type': 'application/json' },
          payload,
        });
        expectErrorShape(response, 400);
        expect(response.body, payload).not.toContain('secret');
      }
    });
  });

  it('answers a body whose length differs from its Content-Length, or has no type, in the shape', async () => {
    const mismatch = await app.inject({
      method: 'POST',
      url: '/api/auth/local/register/email',
      headers: { 'content-type': 'application/json', 'content-length': '4' },
      payload: '{"email":"secret@example.com"}',
    });
    expectErrorShape(mismatch, 400);
    expect(mismatch.body).not.toContain('secret');
    const untyped = await app.inject({
      method: 'POST',
      url: '/api/auth/local/register/email',
      headers: { 'content-type': '' },
      payload: 'secret',
    });
    expectErrorShape(untyped, 415);
    const encoded = await app.inject({
      method: 'POST',
      url: '/api/auth/local/register/email',
      headers: { 'content-type': 'application/json', 'content-encoding': 'x-secret-coding' },
      payload: '{}',
    });
    expectErrorShape(encoded, 415);
    expect(encoded.body).not.toContain('secret');
  });

  describe('validation messages', () => {
    it('name their field, in the message and in `fields`, with the spec’s texts unchanged', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/local/register/email',
        payload: {},
      });
      expectErrorShape(response, 400);
      expect(response.json()).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        message: ['Email is required', 'password is required'],
        fields: [
          { field: 'email', message: 'Email is required' },
          { field: 'password', message: 'password is required' },
        ],
      });
    });

    it('name the field in zod’s own texts and the contract’s generic one, one wording for all', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/oauth/google/verify-token',
        payload: { code: '', clientType: 'IOS' },
      });
      expectErrorShape(response, 400);
      const body = response.json<{
        message: string[];
        fields: Array<{ field: string; message: string }>;
      }>();
      expect(body.fields.map(({ field }) => field)).toEqual(['code', 'clientType']);
      expect(body.fields[0]?.message).toBe('code is required');
      // zod's text for a wrong literal, after the field's name.
      expect(body.fields[1]?.message).toMatch(/^clientType: Invalid input/);
      expect(body.message).toEqual(body.fields.map(({ message }) => message));
      // The value sent is not repeated.
      expect(response.body).not.toContain('IOS');
    });

    it('name the body itself when it is not the object a call takes', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/auth/local/register/email',
        headers: { 'content-type': 'application/json' },
        payload: '[1]',
      });
      expectErrorShape(response, 400);
      expect(response.json()).toMatchObject({
        fields: [{ field: 'body', message: expect.stringMatching(/^body: /) as string }],
      });
    });
  });
});

describe('the answer to a request that took too long to arrive', () => {
  // Node raises it after requestTimeout (30 s), too long for a test to wait: the answer it gets
  // is checked as written on the socket.
  it('is a complete 408 in the error shape that closes the connection', () => {
    const answer = clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT');
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(head).toContain('\r\nConnection: close');
    expect(head).toContain(`\r\nContent-Length: ${Buffer.byteLength(body)}`);
    expect(head).toContain('\r\nX-Content-Type-Options: nosniff');
    expect(JSON.parse(body)).toEqual({
      statusCode: 408,
      error: 'Request Timeout',
      message: 'The request took too long to arrive.',
    });
  });
});
