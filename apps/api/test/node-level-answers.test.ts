// What Node would answer by itself, answered by us (http/node-level-answers.ts), and what Node
// must still do itself: serve HTTP/1.0 without Host, and answer `Expect: 100-continue`. Also the
// parser error in a request's own body, which has no earlier answer to wait for
// (http/client-errors.ts).
import { connect } from 'node:net';

import { ErrorBodySchema } from '@kegel/contract';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildTestApp, uniqueEmail } from './support/test-app';
import { type TestDatabase, testDatabaseKinds } from './support/test-databases';

const pglite = testDatabaseKinds[0]!;

interface Conversation {
  /** Everything the server sent. */
  raw: string;
  /** The server ended the socket, reset it, or left it open for 3 s. */
  ending: 'end' | 'reset' | 'open';
}

/**
 * Writes `request`, and `onData`'s answer to what has arrived so far whenever it has one; reads
 * until the server ends the socket (or 3 s pass).
 */
function converse(
  port: number,
  request: string,
  onData: (received: string) => string | undefined = () => undefined,
): Promise<Conversation> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    let ending: Conversation['ending'] = 'open';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ raw, ending });
    };
    const timer = setTimeout(finish, 3_000);
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString('latin1');
      const reply = onData(raw);
      if (reply !== undefined) socket.write(reply);
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

/** The last answer's status, head (lower-cased) and body, e.g. after a 100 Continue. */
function lastAnswer(raw: string): { status: number; head: string; body: string } {
  const start = [...raw.matchAll(/HTTP\/1\.1 \d{3} /g)].at(-1)?.index ?? 0;
  const headEnd = raw.indexOf('\r\n\r\n', start);
  return {
    status: Number(raw.slice(start + 9, start + 12)),
    head: raw.slice(start, headEnd).toLowerCase(),
    body: raw.slice(headEnd + 4),
  };
}

describe('what Node answers by itself, and what it still does', () => {
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

  it('serves an HTTP/1.0 request without Host (HTTP/1.0 has none)', async () => {
    const answer = await converse(port, 'GET /api/health HTTP/1.0\r\n\r\n');
    expect(answer.raw, answer.raw).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes the connection after refusing an HTTP/1.1 request without Host, repeating nothing', async () => {
    const answer = await converse(port, 'GET /api/health?probe=echo-me HTTP/1.1\r\n\r\n');
    const { status, head, body } = lastAnswer(answer.raw);
    expect(status, answer.raw).toBe(400);
    expect(head).toContain('\r\nconnection: close');
    expect(answer.ending).toBe('end');
    expect(body).not.toContain('echo-me');
  });

  it('still answers Expect: 100-continue with 100, then carries out the request', async () => {
    const email = uniqueEmail('continue');
    const body = JSON.stringify({ email, password: 'Correct-Horse-Battery-9' });
    let sentBody = false;
    const answer = await converse(
      port,
      'POST /api/auth/local/register/email HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
        `Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      (received) => {
        if (sentBody || !received.startsWith('HTTP/1.1 100 ')) return undefined;
        sentBody = true;
        return body;
      },
    );
    expect(answer.raw, answer.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    expect(lastAnswer(answer.raw).status, answer.raw).toBe(201);
  });

  it('answers an unmet Expect and CONNECT without repeating what they asked for', async () => {
    const expectation = await converse(
      port,
      'GET /api/health HTTP/1.1\r\nHost: localhost\r\nExpect: echo-me\r\n\r\n',
    );
    const tunnel = await converse(
      port,
      'CONNECT echo-me:443 HTTP/1.1\r\nHost: echo-me:443\r\n\r\n',
    );
    for (const [answer, status] of [
      [expectation, 417],
      [tunnel, 405],
    ] as const) {
      const { status: seen, head, body } = lastAnswer(answer.raw);
      expect(seen, answer.raw).toBe(status);
      expect(head).toContain('\r\nconnection: close');
      expect(answer.ending).toBe('end');
      expect(ErrorBodySchema.safeParse(JSON.parse(body)).success, body).toBe(true);
      expect(body).not.toContain('echo-me');
    }
  });

  it('answers a body that is not valid chunked encoding with 400 at once: no earlier answer to wait for', async () => {
    const answer = await converse(
      port,
      'POST /api/auth/local/login/email HTTP/1.1\r\nHost: localhost\r\n' +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nnot-a-size\r\n',
    );
    expect(lastAnswer(answer.raw).status, answer.raw).toBe(400);
    expect(answer.ending).toBe('end');
  });
});
