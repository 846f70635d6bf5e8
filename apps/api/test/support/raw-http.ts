// HTTP as a client writes it on a socket, for the tests of what the server answers below the
// route (the parser, the router, what Node would answer by itself): `inject` never reaches those
// layers, so these tests write raw bytes to a listening server and read its answers back.
import { connect } from 'node:net';

import { ErrorBodySchema } from '@kegel/contract';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';

import { buildTestApp } from './test-app';
import { testDatabaseKinds } from './test-databases';

/** One answer read off the wire. */
export interface RawAnswer {
  status: number;
  /** Header names lower-cased. */
  headers: Map<string, string>;
  /** As long as the Content-Length says; the rest of what arrived when there is none. */
  body: string;
}

export interface RawExchange {
  /** Everything the server sent on the connection, one character per byte (latin1). */
  raw: string;
  /** The answers in `raw`, in order. */
  answers: RawAnswer[];
  /** How the socket finished: the server ended it, reset it, or left it open for the settle time. */
  ending: 'end' | 'reset' | 'open';
}

export interface SendOptions {
  /** What to write next, given everything received so far (undefined: nothing yet). */
  onData?: (received: string) => string | undefined;
  /** How long to wait for the server to end the socket. Long enough for a loaded machine. */
  settleMs?: number;
}

/**
 * Writes `request` as written (latin1: one byte per character) and reads until the server ends
 * the socket, resets it, or `settleMs` pass.
 */
export function sendRaw(
  port: number,
  request: string,
  { onData = () => undefined, settleMs = 3_000 }: SendOptions = {},
): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    let ending: RawExchange['ending'] = 'open';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ raw, answers: parseAnswers(raw), ending });
    };
    const timer = setTimeout(finish, settleMs);
    socket.on('data', (chunk: Buffer) => {
      raw += chunk.toString('latin1');
      const reply = onData(raw);
      if (reply !== undefined) socket.write(reply, 'latin1');
    });
    socket.on('end', () => {
      ending = 'end';
      finish();
    });
    socket.on('error', () => {
      ending = 'reset';
      finish();
    });
    socket.write(request, 'latin1');
  });
}

/** An `onData` that writes the next of `requests` each time more of an answer arrives. */
export function oneAfterAnother(...requests: string[]): SendOptions['onData'] {
  return () => requests.shift();
}

function headersOf(head: string): Map<string, string> {
  const [, ...lines] = head.split('\r\n');
  return new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
}

/**
 * The answers in what the server sent, read one after the other by their Content-Length: a
 * pipelined answer's status line follows the body before it directly, not on a line of its own.
 * An interim answer (100 Continue) has no body; an answer without Content-Length takes the rest.
 */
export function parseAnswers(raw: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let start = 0;
  while (start < raw.length) {
    const statusLine = /^HTTP\/1\.1 (\d{3}) /.exec(raw.slice(start));
    const headEnd = raw.indexOf('\r\n\r\n', start);
    if (!statusLine || headEnd === -1) break;
    const status = Number(statusLine[1]);
    const headers = headersOf(raw.slice(start, headEnd));
    const bodyStart = headEnd + 4;
    const declared = headers.get('content-length');
    const length = status < 200 ? 0 : declared === undefined ? undefined : Number(declared);
    const bodyEnd = length === undefined ? raw.length : bodyStart + length;
    const body = Buffer.from(raw.slice(bodyStart, bodyEnd), 'latin1').toString('utf8');
    answers.push({ status, headers, body });
    start = bodyEnd;
  }
  return answers;
}

/**
 * An answer in the one error shape, as a client sees it: the status, the error body (its
 * statusCode the status, no internal `code`), JSON with its exact length, the security headers,
 * and `Connection: close` when the server must close after it.
 */
export function expectErrorShapeOnTheWire(
  answer: RawAnswer | undefined,
  status: number,
  { closes = false }: { closes?: boolean } = {},
): void {
  const seen = JSON.stringify(answer && { ...answer, headers: [...answer.headers] });
  expect(answer?.status, seen).toBe(status);
  if (!answer) return;
  const body: unknown = JSON.parse(answer.body || 'null');
  expect(ErrorBodySchema.safeParse(body).success, seen).toBe(true);
  expect(body, seen).toMatchObject({ statusCode: status });
  expect(body, seen).not.toHaveProperty('code');
  expect(answer.headers.get('content-type'), seen).toMatch(/^application\/json/);
  expect(Number(answer.headers.get('content-length')), seen).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.get('x-content-type-options'), seen).toBe('nosniff');
  expect(answer.headers.get('content-security-policy'), seen).toContain("frame-ancestors 'none'");
  if (closes) expect(answer.headers.get('connection'), seen).toBe('close');
}

export interface ListeningTestApp {
  app: FastifyInstance;
  port: number;
  close(): Promise<void>;
}

/** The test app on a fresh PGlite database, listening on a free loopback port. */
export async function startListeningTestApp(
  options: Parameters<typeof buildTestApp>[1] = {},
): Promise<ListeningTestApp> {
  const database = await testDatabaseKinds[0]!.create();
  const app = await buildTestApp(database, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    port: (app.server.address() as { port: number }).port,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

/**
 * The listening test app for the tests of one describe block: started before them, closed after
 * them. Its fields are there once the block's tests run.
 */
export function listeningTestAppForSuite(
  options: Parameters<typeof buildTestApp>[1] = {},
): ListeningTestApp {
  let started: ListeningTestApp | undefined;
  beforeAll(async () => {
    started = await startListeningTestApp(options);
  });
  afterAll(() => started?.close());
  const current = (): ListeningTestApp => {
    if (!started) throw new Error('the listening test app starts before the tests (beforeAll)');
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get port() {
      return current().port;
    },
    close: () => current().close(),
  };
}
