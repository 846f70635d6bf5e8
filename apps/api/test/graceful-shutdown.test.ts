// What a load balancer sees of a process that is told to stop (docs/deployment.md, Health and
// readiness): the real entry point in a process of its own, driven over real sockets, as HAProxy
// drives it.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { type TestDatabase, testDatabaseKinds } from './support/test-databases';
import { childProcessPath } from './support/test-env';

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// TypeScript through tsx's loader, in this one process: the tsx command would stand between the
// test and the server, and it kills a child that does not acknowledge a signal within 30 ms.
const TSX_LOADER = import.meta.resolve('tsx');

interface RunningServer {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts src/main.ts as the built server starts, and resolves once it listens. The free port it
 * is given may be taken by another socket before it listens (tests run side by side and open
 * connections); then it is started again on another.
 */
async function startServer(env: Record<string, string>, attempts = 3): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', TSX_LOADER, MAIN], {
    env: {
      PATH: childProcessPath,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 60_000;
  while (!output.includes('is running at')) {
    if (child.exitCode !== null && output.includes('is already in use') && attempts > 1) {
      return startServer(env, attempts - 1);
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port, output: () => output, exited };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One GET on a connection of its own; a refused connection rejects with ECONNREFUSED. */
function get(port: number, path: string, agent: Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, path, agent, timeout: 20_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/**
 * `get`, with a connection the server did not take as the answer 'refused': refused, or reset when
 * it was still waiting in the listen queue as the server stopped listening.
 */
function getOrRefused(port: number, path: string): Promise<Answer | 'refused'> {
  return get(port, path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET') return 'refused' as const;
    throw error;
  });
}

/**
 * An HTTP/1.1 request written by hand on a socket of its own, so that it can be left half sent:
 * its headers and the start of its body now, the rest when `finish` is called. Resolves with
 * everything the server sent once the server closes the connection.
 */
function startSlowRequest(port: number, method: string, path: string, body: string) {
  const socket: Socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const cut = Math.floor(body.length / 2);
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, cut)}`,
  );
  return {
    finish(): Promise<string> {
      // Not end(): a client that half-closes its side has its request dropped by Node's server.
      socket.write(body.slice(cut));
      return closed;
    },
  };
}

/** Status, headers (lower-case) and body of one raw HTTP/1.1 answer. */
function parseAnswer(raw: string): Answer {
  const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers: Answer['headers'] = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe.each(testDatabaseKinds)('stopping the server on $name', (kind) => {
  let database: TestDatabase | undefined;
  let server: RunningServer | undefined;

  afterEach(async () => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
    server = undefined;
    await database?.drop();
    database = undefined;
  });

  it('on SIGTERM fails /api/ready at once, serves through the drain, closes idle connections, finishes what is in flight and exits 0', async () => {
    database = await kind.create();
    // The drain period left at its default (SHUTDOWN_DRAIN_SECONDS, 5 s).
    server = await startServer(database.env);
    const { port } = server;

    // A client that keeps its connection open between calls, as a balancer does.
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 1 });
    let idleSocket: Socket | undefined;
    const first = await new Promise<Answer>((resolve, reject) => {
      const outgoing = httpRequest(
        { host: '127.0.0.1', port, path: '/api/health', agent: keepAlive },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: '' }),
          );
        },
      );
      outgoing.on('socket', (socket) => (idleSocket = socket));
      outgoing.on('error', reject);
      outgoing.end();
    });
    expect(first.status).toBe(200);
    expect(first.headers.connection).toBe('keep-alive');
    let isIdleConnectionClosed = false;
    const idleConnectionClosed = new Promise<void>((resolve) =>
      idleSocket!.once('close', () => {
        isIdleConnectionClosed = true;
        resolve();
      }),
    );

    // A registration whose body is still on its way when the signal comes.
    const email = `drain.${randomUUID()}@example.com`;
    const inFlight = startSlowRequest(
      port,
      'POST',
      '/api/auth/local/register/email',
      JSON.stringify({ email, password: 'a long enough password' }),
    );

    expect(await getOrRefused(port, '/api/ready')).toMatchObject({ status: 200 });
    server.child.kill('SIGTERM');

    // Readiness fails as soon as the signal is handled ...
    let ready: Answer | 'refused';
    do ready = await getOrRefused(port, '/api/ready');
    while (ready !== 'refused' && ready.status === 200);
    expect(ready).not.toBe('refused');
    expect((ready as Answer).status).toBe(503);
    expect(JSON.parse((ready as Answer).body)).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The server is shutting down',
    });
    // ... while every other call is still served, each on a connection it then closes.
    const health = await getOrRefused(port, '/api/health');
    expect(health).toMatchObject({ status: 200, headers: { connection: 'close' } });
    const plans = await getOrRefused(port, '/api/payments/stripe/plans');
    expect(plans).toMatchObject({ status: 200, headers: { connection: 'close' } });
    expect(JSON.parse((plans as Answer).body)).toHaveLength(4);
    expect(isIdleConnectionClosed).toBe(false);

    // Until the drain ends: then no new connection is taken ...
    const duringDrain: number[] = [];
    for (;;) {
      const answer = await getOrRefused(port, '/api/health');
      // The drain is over: a new connection is refused, or, taken in the moment between Fastify
      // beginning to close and the listener closing, answered 503 (a balancer tries elsewhere).
      if (answer === 'refused' || answer.status === 503) break;
      duringDrain.push(answer.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(duringDrain.length).toBeGreaterThan(0);
    expect(
      duringDrain.every((status) => status === 200),
      String(duringDrain),
    ).toBe(true);
    // ... the idle connection is closed by the server ...
    await idleConnectionClosed;
    keepAlive.destroy();

    // ... and the request in flight is finished, on a connection the server then closes.
    const registered = parseAnswer(await inFlight.finish());
    expect(registered.status, registered.body).toBe(201);
    expect(registered.headers.connection).toBe('close');

    // By itself: the forced exit after its timeout is code 1.
    expect(await server.exited, server.output()).toBe(0);
  }, 60_000);

  it('on SIGINT (Ctrl+C in a terminal) stops taking connections at once, without a drain', async () => {
    database = await kind.create();
    server = await startServer(database.env);
    const { port } = server;
    expect(await getOrRefused(port, '/api/ready')).toMatchObject({ status: 200 });
    server.child.kill('SIGINT');
    let ready: Answer | 'refused';
    do ready = await getOrRefused(port, '/api/ready');
    while (ready !== 'refused' && ready.status === 200);
    // Not draining: no call is served any more (a connection already taken gets Fastify's 503).
    const health = await getOrRefused(port, '/api/health');
    expect(health === 'refused' ? health : health.status, JSON.stringify(ready)).not.toBe(200);
    expect(await server.exited, server.output()).toBe(0);
  }, 60_000);
});
