// What Node would answer by itself, answered by us (http/node-level-answers.ts), and what Node
// must still do itself: serve HTTP/1.0 without Host, and answer `Expect: 100-continue`. Also the
// parser error in a request's own body, which has no earlier answer to wait for
// (http/client-errors.ts).
import { describe, expect, it } from 'vitest';

import { expectErrorShapeOnTheWire, sendRaw, listeningTestAppForSuite } from './support/raw-http';
import { uniqueEmail } from './support/test-app';

describe('what Node answers by itself, and what it still does', () => {
  const server = listeningTestAppForSuite();

  it('serves an HTTP/1.0 request without Host (HTTP/1.0 has none)', async () => {
    const answer = await sendRaw(server.port, 'GET /api/health HTTP/1.0\r\n\r\n');
    expect(answer.raw, answer.raw).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('closes the connection after refusing an HTTP/1.1 request without Host, repeating nothing', async () => {
    const answer = await sendRaw(server.port, 'GET /api/health?probe=echo-me HTTP/1.1\r\n\r\n');
    const last = answer.answers.at(-1);
    expect(last?.status, answer.raw).toBe(400);
    expect(last?.headers.get('connection')).toBe('close');
    expect(answer.ending).toBe('end');
    expect(last?.body).not.toContain('echo-me');
  });

  it('still answers Expect: 100-continue with 100, then carries out the request', async () => {
    const email = uniqueEmail('continue');
    const body = JSON.stringify({ email, password: 'Correct-Horse-Battery-9' });
    let sentBody = false;
    const answer = await sendRaw(
      server.port,
      'POST /api/auth/local/register/email HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n' +
        `Expect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      {
        onData: (received) => {
          if (sentBody || !received.startsWith('HTTP/1.1 100 ')) return undefined;
          sentBody = true;
          return body;
        },
      },
    );
    expect(answer.raw, answer.raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n/);
    expect(answer.answers.at(-1)?.status, answer.raw).toBe(201);
  });

  it('answers an unmet Expect and CONNECT without repeating what they asked for', async () => {
    const expectation = await sendRaw(
      server.port,
      'GET /api/health HTTP/1.1\r\nHost: localhost\r\nExpect: echo-me\r\n\r\n',
    );
    const tunnel = await sendRaw(
      server.port,
      'CONNECT echo-me:443 HTTP/1.1\r\nHost: echo-me:443\r\n\r\n',
    );
    for (const [answer, status] of [
      [expectation, 417],
      [tunnel, 405],
    ] as const) {
      const last = answer.answers.at(-1);
      expectErrorShapeOnTheWire(last, status, { closes: true });
      expect(answer.ending).toBe('end');
      expect(last?.body).not.toContain('echo-me');
    }
  });

  it('answers a body that is not valid chunked encoding with 400 at once: no earlier answer to wait for', async () => {
    const answer = await sendRaw(
      server.port,
      'POST /api/auth/local/login/email HTTP/1.1\r\nHost: localhost\r\n' +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nnot-a-size\r\n',
    );
    expect(answer.answers.at(-1)?.status, answer.raw).toBe(400);
    expect(answer.ending).toBe('end');
  });
});
