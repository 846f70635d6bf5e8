// Sends the fuzz's requests over real HTTP, on kept-alive connections as a mobile client's HTTP
// stack does, so that a connection the server drops (a reset, a hang-up, an answer cut short)
// shows as what it is rather than being hidden by a fresh connection per request.
import http from 'node:http';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';

import type { Answer } from './answer-checks';
import type { FuzzRequest } from './fuzz-requests';

export type Sent =
  | { answer: Answer }
  /** The connection failed: its error code, and what the same connection carried just before. */
  | { dropped: string; previous?: Previous };

/** The request a connection carried last, and what it was answered. */
export interface Previous {
  request: FuzzRequest;
  outcome: string;
}

/** Long enough for an argon2 hash on a loaded machine; a request that takes longer is a failure. */
const REQUEST_TIMEOUT_MS = 30_000;

/** The body as the server meant it: an `accept-encoding` probe gets it compressed. */
function decoded(body: Buffer, encoding: string | undefined): string {
  try {
    if (encoding === 'gzip') return zlib.gunzipSync(body).toString('utf8');
    if (encoding === 'br') return zlib.brotliDecompressSync(body).toString('utf8');
    if (encoding === 'deflate') return zlib.inflateSync(body).toString('utf8');
  } catch {
    // Left as it came: the check then finds it is no JSON.
  }
  return body.toString('utf8');
}

export function createHttpSender(origin: string, connections: number) {
  const { hostname, port } = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const lastRequestOn = new WeakMap<Socket, Previous>();

  function send(request: FuzzRequest): Promise<Sent> {
    return new Promise((resolve) => {
      let settled = false;
      let socket: Socket | undefined;
      const settle = (sent: Sent) => {
        if (settled) return;
        settled = true;
        if (socket) {
          const outcome = 'answer' in sent ? String(sent.answer.status) : sent.dropped;
          lastRequestOn.set(socket, { request, outcome });
        }
        resolve(sent);
      };
      const drop = (error: Error & { code?: string }) => {
        settle({
          dropped: error.code ?? error.message,
          previous: socket && lastRequestOn.get(socket),
        });
      };
      const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
      const headers = { ...request.headers };
      // Node's client sends a DELETE's body with no length at all unless told (the server then
      // reads the body as the next request); a chunked probe carries its own framing.
      if (body && headers['transfer-encoding'] === undefined) {
        headers['content-length'] = String(body.length);
      }
      const outgoing = http.request(
        {
          host: hostname,
          port,
          method: request.method,
          path: request.path,
          headers,
          agent,
          timeout: REQUEST_TIMEOUT_MS,
        },
        (incoming) => {
          const chunks: Buffer[] = [];
          incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
          incoming.on('error', drop);
          incoming.on('aborted', () => drop(new Error('answer cut short')));
          incoming.on('end', () => {
            if (!incoming.complete) return drop(new Error('answer cut short'));
            settle({
              answer: {
                status: incoming.statusCode ?? 0,
                headers: incoming.headers,
                body: decoded(Buffer.concat(chunks), incoming.headers['content-encoding']),
              },
            });
          });
        },
      );
      outgoing.on('socket', (assigned) => {
        // Read before this request overwrites it: what the socket carried last.
        socket = assigned;
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 30 s')));
      outgoing.on('error', drop);
      outgoing.end(body);
    });
  }

  return { send, close: () => agent.destroy() };
}
