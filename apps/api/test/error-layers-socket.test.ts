// The errors raised before a route is found, seen on a real socket as a client sees them: the
// router's (a malformed %-encoding, a path parameter over the router's limit) and the HTTP
// parser's (headers over Node's limit, a request that is not HTTP). Each answers in the error
// shape with the security headers, repeats nothing of the request, and a parser error closes the
// connection cleanly: `Connection: close`, the whole answer, then the end of the socket, no reset.
import { endpoints } from '@kegel/contract';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';

import {
  expectErrorShapeOnTheWire,
  oneAfterAnother,
  sendRaw,
  listeningTestAppForSuite,
} from './support/raw-http';

/** A GET that asks the server to close the connection after its answer, so the read can end. */
function get(path: string, extraHeaders = ''): string {
  return `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extraHeaders}\r\n`;
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
  const server = listeningTestAppForSuite();

  it('answers a malformed %-encoding through the error handler, repeating nothing', async () => {
    const [answer] = (await sendRaw(server.port, get('/api/payments/stripe/session/%E0%A4%A')))
      .answers;
    expectErrorShapeOnTheWire(answer, 400);
    expect(answer?.body).not.toContain('%E0');
    expect(answer?.body).not.toContain('stripe');
  });

  it('takes a path parameter as long as the contract declares, and refuses a longer one in the error shape', async () => {
    const longest = longestDeclaredParameter();
    expect(longest).toBe(255);
    // As long as the contract allows: the call itself answers (no such payment).
    const [allowed] = (
      await sendRaw(server.port, get(`/api/payments/stripe/session/${'c'.repeat(longest)}`))
    ).answers;
    expect(allowed?.status, allowed?.body).toBe(404);
    expect(JSON.parse(allowed?.body ?? 'null')).toMatchObject({ message: 'Payment not found' });
    // One more: the router refuses it, in the one shape, without repeating the path.
    const [tooLong] = (
      await sendRaw(server.port, get(`/api/payments/stripe/session/${'s'.repeat(longest + 1)}`))
    ).answers;
    expectErrorShapeOnTheWire(tooLong, 414);
    expect(tooLong?.body).not.toContain('sss');
  });

  it('answers headers over Node’s limit with 431, Connection: close, and ends the socket cleanly', async () => {
    for (const headers of [
      `Cookie: session=${'x'.repeat(20 * 1024)}\r\n`,
      Array.from({ length: 400 }, (_, index) => `X-Filler-${index}: ${'y'.repeat(60)}\r\n`).join(
        '',
      ),
    ]) {
      const { answers, ending } = await sendRaw(server.port, get('/api/health', headers));
      expectErrorShapeOnTheWire(answers[0], 431, { closes: true });
      expect(answers[0]?.body).not.toContain('xxx');
      expect(ending).toBe('end');
    }
  });

  it('answers a request that is not HTTP with 400 in the error shape and ends the socket', async () => {
    const { answers, ending } = await sendRaw(server.port, 'NOT HTTP AT ALL\r\n\r\n');
    expectErrorShapeOnTheWire(answers[0], 400, { closes: true });
    expect(ending).toBe('end');
  });

  it('answers a malformed request after good ones on a kept-alive connection too', async () => {
    const kept = `GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    const answer = await sendRaw(server.port, kept, {
      onData: oneAfterAnother(kept, 'NOT HTTP AT ALL\r\n\r\n'),
    });
    // Two answers to the good requests, then the error's.
    expect(answer.answers[0]?.status).toBe(200);
    const last = answer.raw.slice(answer.raw.lastIndexOf('HTTP/1.1 '));
    expect(answer.raw.split('HTTP/1.1 ')).toHaveLength(4);
    expect(last).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(last.toLowerCase()).toContain('connection: close');
    const body: unknown = JSON.parse(last.slice(last.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(answer.ending).toBe('end');
  });

  it('reads an ordinary answer the same way (the reading above is sound)', async () => {
    const { answers, ending } = await sendRaw(server.port, get('/api/health'));
    expect(ending).toBe('end');
    expect(answers[0]?.status).toBe(200);
    expect(JSON.parse(answers[0]?.body ?? 'null')).toEqual({ status: 'ok' });
  });
});
