// The errors Node's HTTP parser raises before there is a request to route: headers over Node's
// limit (431), a request that is not HTTP (400), one that takes too long to arrive (408). No hook
// and no error handler can run (there is no request), so the answer is written on the socket
// here, in the error shape, with the headers every error answer carries that need no request.
//
// Fastify's own answer left the connection looking reusable (no `Connection: close`) and then
// destroyed the socket with input still unread, which a client sees as a reset instead of the
// answer. Here the connection is closed as HTTP means it to be: `Connection: close`, the answer,
// then our end of the socket; what the client still sends is read and dropped until it closes its
// end (or a short grace period ends). The requests read before the refused one are answered
// first, whole and in order (afterEarlierResponses).
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

import type { ErrorBody } from '@kegel/contract';
import type { ConnectionError, FastifyInstance } from 'fastify';

/** How long a client may go on sending after the answer before the socket is destroyed. */
const CLOSE_GRACE_MS = 5_000;

/** By the parser's error code; anything else the parser refuses is a malformed request. */
const CLIENT_ERRORS: Record<string, { statusCode: number; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    statusCode: 431,
    message: 'The request’s headers are larger than the server takes.',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    statusCode: 408,
    message: 'The request took too long to arrive.',
  },
  ERR_HTTP_HEADERS_TIMEOUT: {
    statusCode: 408,
    message: 'The request took too long to arrive.',
  },
};
const MALFORMED_REQUEST = { statusCode: 400, message: 'The request is not valid HTTP.' };

/**
 * What the security headers plugin sends on every answer, as far as an answer that is only JSON
 * needs it: nothing may run, frame or sniff it, and no cache keeps it.
 */
const ERROR_ANSWER_HEADERS = {
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  Connection: 'close',
};

/** An error answer in the error shape, as status, headers and body, for any writer. */
export function errorAnswer(
  statusCode: number,
  message: string,
): { statusCode: number; headers: Record<string, string>; body: string } {
  const body: ErrorBody = { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
  const json = JSON.stringify(body);
  const headers = { ...ERROR_ANSWER_HEADERS, 'Content-Length': String(Buffer.byteLength(json)) };
  return { statusCode, headers, body: json };
}

/** The same answer as raw HTTP, for a socket no response object writes to. */
export function rawErrorAnswer(statusCode: number, message: string): string {
  const { headers, body } = errorAnswer(statusCode, message);
  const status = STATUS_CODES[statusCode] ?? 'Error';
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${statusCode} ${status}\r\n${headerLines.join('')}\r\n${body}`;
}

/** The raw HTTP answer to a parser error: status line, headers and the error shape. */
export function clientErrorAnswer(errorCode: string | undefined): string {
  const { statusCode, message } = CLIENT_ERRORS[errorCode ?? ''] ?? MALFORMED_REQUEST;
  return rawErrorAnswer(statusCode, message);
}

/**
 * Ends the connection with `answer` (or with nothing more, without one), then reads and drops
 * what the client still sends until it closes its end or the grace period ends.
 */
export function closeConnection(socket: Socket, answer?: string): void {
  // Errors of a connection being closed (a client's reset) have nobody left to tell.
  socket.on('error', () => undefined);
  socket.resume();
  if (answer === undefined) socket.end();
  else socket.end(answer);
  const destroyLater = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  destroyLater.unref();
  socket.once('close', () => clearTimeout(destroyLater));
}

/** What Node keeps on the socket: the response it is writing now (lib/_http_server.js). */
type SocketWithResponse = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Calls `then` once the responses to the requests before the refused one are finished, with the
 * response still unfinished if the refused bytes belong to its own request (a body that does not
 * parse, or stops arriving): nothing more can come for that request.
 *
 * Requests read before the refused one are carried out (a registration creates its account), so
 * their answers must reach the client first and whole: an error written before them would be
 * read as their answer, and ending the socket under one would cut it. Node writes pipelined
 * answers one at a time, in order: when one finishes (its own 'finish' listener, added before
 * ours, runs first) the next becomes the socket's current response.
 */
function afterEarlierResponses(
  socket: SocketWithResponse,
  then: (unfinished: ServerResponse | undefined) => void,
): void {
  const current = socket._httpMessage ?? undefined;
  if (current === undefined || current.writableFinished) return then(undefined);
  if (!current.req.complete) return then(current);
  current.once('finish', () => afterEarlierResponses(socket, then));
}

/** The sockets answered already: the parser reports every later chunk of a refused connection. */
const refusedConnections = new WeakSet<Socket>();

/** Fastify's `clientErrorHandler` option; Fastify calls it with the server as `this`. */
export function answerClientError(
  this: FastifyInstance,
  error: ConnectionError,
  socket: Socket,
): void {
  // A reset connection has nobody to answer.
  if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || !socket.writable) return;
  if (refusedConnections.has(socket)) return;
  refusedConnections.add(socket);
  // Its code only: the error carries the refused bytes (rawPacket), Authorization and cookies
  // included.
  this.log.debug({ code: error.code }, 'client error: answered and closed the connection');
  afterEarlierResponses(socket, (unfinished) => {
    // A connection ended meanwhile (a response that asked to close it) needs no answer.
    if (!socket.writable) return;
    // An answer under way (a body that stops arriving after the answer began) cannot be followed
    // by another; Node's own handler asks the same (lib/_http_server.js, socketOnError).
    if (unfinished?.headersSent) closeConnection(socket);
    else closeConnection(socket, clientErrorAnswer(error.code));
  });
}
