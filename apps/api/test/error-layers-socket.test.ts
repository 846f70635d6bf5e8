// The errors raised before a route is found, seen on a real socket as a client sees them: the
// router's (a malformed %-encoding, a path parameter over the router's limit) and the HTTP
// parser's (headers over Node's limit, a request that is not HTTP). Each answers in the error
// shape with the security headers, repeats nothing of the request, and a parser error closes the
// connection cleanly: `Connection: close`, the whole answer, then the end of the socket, no reset.
import { connect } from 'node:net';

import { ErrorBodySchema, endpoints } from '@kegel/contract';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';

import { buildTestApp } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

const pglite = testDatabaseKinds[0]!;

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Everything the server sent, every answer on the connection. */
  raw: string;
  /** How the socket finished after the answer: the server ended it, or it was reset. */
  ending: 'end' | 'reset' | 'open';
}

/** The first answer's body: as long as its Content-Length says (more answers may follow). */
function firstBody(rest: string, headers: Map<string, string>): string {
  const length = Number(headers.get('content-length'));
  return Number.isNaN(length) ? rest : Buffer.from(rest).subarray(0, length).toString('utf8');
}

/**
 * Sends `request` as written and reads until the server ends the socket (or 3 s pass). Further
 * requests are sent one by one, each once the previous one's answer began to arrive.
 */
function sendRaw(port: number, request: string, ...next: string[]): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let ending: RawAnswer['ending'] = 'open';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const headEnd = text.indexOf('\r\n\r\n');
      const head = headEnd === -1 ? text : text.slice(0, headEnd);
      const rest = headEnd === -1 ? '' : text.slice(headEnd + 4);
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = new Map(
        headerLines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
        }),
      );
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: firstBody(rest, headers),
        raw: text,
        ending,
      });
    };
    // Long enough for a loaded machine; a server that keeps the socket open shows as 'open'.
    const timer = setTimeout(finish, 3_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const following = next.shift();
      if (following !== undefined) socket.write(following);
    });
    socket.on('end', () => {
      ending = 'end';
      finish();
    });
    socket.on('error', () => {
      ending = 'reset';
      finish();
    });
    socket.write(request);
  });
}

/** A GET that asks the server to close the connection after its answer, so the read can end. */
function get(path: string, extraHeaders = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extraHeaders}\r\n`;
}

function expectErrorShape(answer: RawAnswer, status: number): void {
  expect(answer.status, answer.body).toBe(status);
  const body: unknown = JSON.parse(answer.body);
  expect(ErrorBodySchema.safeParse(body).success, answer.body).toBe(true);
  expect(body).toMatchObject({ statusCode: status });
  expect(body).not.toHaveProperty('code');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
}

/** The longest path parameter any call declares, read from the contract as the server reads it. */
function longestDeclaredParameter(): number {
  const lengths = Object.values(endpoints).flatMap((call) =>
    'params' in call && call.params
      ? Object.values(
          (z.toJSONSchema(call.params) as { properties: Record<string, { maxLength?: number }> })
            .properties,
        ).map(({ maxLength }) => maxLength ?? 0)
      : [],
  );
  return Math.max(...lengths);
}

describe('errors below the route, on the socket', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    database = await pglite.create();
    app = await buildTestApp(database);
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  it('answers a malformed %-encoding through the error handler, repeating nothing', async () => {
    const answer = await sendRaw(port, get('/api/payments/stripe/session/%E0%A4%A'));
    expectErrorShape(answer, 400);
    expect(answer.body).not.toContain('%E0');
    expect(answer.body).not.toContain('stripe');
  });

  it('takes a path parameter as long as the contract declares, and refuses a longer one in the error shape', async () => {
    const longest = longestDeclaredParameter();
    expect(longest).toBe(255);
    // As long as the contract allows: the call itself answers (no such payment).
    const allowed = await sendRaw(port, get(`/api/payments/stripe/session/${'c'.repeat(longest)}`));
    expect(allowed.status, allowed.body).toBe(404);
    expect(JSON.parse(allowed.body)).toMatchObject({ message: 'Payment not found' });
    // One more: the router refuses it, in the one shape, without repeating the path.
    const tooLong = await sendRaw(
      port,
      get(`/api/payments/stripe/session/${'s'.repeat(longest + 1)}`),
    );
    expectErrorShape(tooLong, 414);
    expect(tooLong.body).not.toContain('sss');
  });

  it('answers headers over Node’s limit with 431, Connection: close, and ends the socket cleanly', async () => {
    for (const headers of [
      `Cookie: session=${'x'.repeat(20 * 1024)}\r\n`,
      Array.from({ length: 400 }, (_, index) => `X-Filler-${index}: ${'y'.repeat(60)}\r\n`).join(
        '',
      ),
    ]) {
      const answer = await sendRaw(port, get('/api/health', headers));
      expectErrorShape(answer, 431);
      expect(answer.headers.get('connection')).toBe('close');
      expect(answer.body).not.toContain('xxx');
      expect(answer.ending).toBe('end');
    }
  });

  it('answers a request that is not HTTP with 400 in the error shape and ends the socket', async () => {
    const answer = await sendRaw(port, 'NOT HTTP AT ALL\r\n\r\n');
    expectErrorShape(answer, 400);
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.ending).toBe('end');
  });

  it('answers a malformed request after good ones on a kept-alive connection too', async () => {
    const kept = `GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    const answer = await sendRaw(port, kept, kept, 'NOT HTTP AT ALL\r\n\r\n');
    // Two answers to the good requests, then the error's.
    expect(answer.status).toBe(200);
    const last = answer.raw.slice(answer.raw.lastIndexOf('HTTP/1.1 '));
    expect(answer.raw.split('HTTP/1.1 ')).toHaveLength(4);
    expect(last).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(last.toLowerCase()).toContain('connection: close');
    const body: unknown = JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(answer.ending).toBe('end');
  });

  it('reads an ordinary answer the same way (the reading above is sound)', async () => {
    const answer = await sendRaw(port, get('/api/health'));
    expect(answer.ending).toBe('end');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'ok' });
  });
});
