// The errors Node's HTTP parser raises before there is a request to route: headers over Node's
// limit (431), a request that is not HTTP (400), one that takes too long to arrive (408). No hook
// and no error handler can run (there is no request), so the answer is written on the socket
// here, in the error shape, with the headers every error answer carries that need no request.
//
// Fastify's own answer left the connection looking reusable (no `Connection: close`) and then
// destroyed the socket with input still unread, which a client sees as a reset instead of the
// answer. Here the connection is closed as HTTP means it to be: `Connection: close`, the answer,
// then our end of the socket; what the client still sends is read and dropped until it closes its
// end (or a short grace period ends).
import { STATUS_CODES } from 'node:http';
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

/** The raw HTTP answer to a parser error: status line, headers and the error shape. */
export function clientErrorAnswer(errorCode: string | undefined): string {
  const { statusCode, message } = CLIENT_ERRORS[errorCode ?? ''] ?? MALFORMED_REQUEST;
  const status = STATUS_CODES[statusCode] ?? 'Error';
  const body: ErrorBody = { statusCode, error: status, message };
  const json = JSON.stringify(body);
  const headers = { ...ERROR_ANSWER_HEADERS, 'Content-Length': String(Buffer.byteLength(json)) };
  const headerLines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${statusCode} ${status}\r\n${headerLines.join('')}\r\n${json}`;
}

/** Fastify's `clientErrorHandler` option; Fastify calls it with the server as `this`. */
export function answerClientError(
  this: FastifyInstance,
  error: ConnectionError,
  socket: Socket,
): void {
  // A reset connection has nobody to answer; the parser also reports every later chunk of a
  // connection it already refused, which has had its answer.
  if ((error as NodeJS.ErrnoException).code === 'ECONNRESET' || !socket.writable) return;
  this.log.debug({ err: error }, 'client error: answered and closed the connection');
  // An answer under way on this connection (a timeout mid-response) cannot be followed by
  // another; one finished earlier on a kept-alive connection can. Node's own handler asks the
  // same of the socket's current response (lib/_http_server.js, socketOnError).
  const current = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })
    ._httpMessage;
  if (current?.headersSent) socket.end();
  else socket.end(clientErrorAnswer(error.code));
  const destroyLater = setTimeout(() => socket.destroy(), CLOSE_GRACE_MS);
  destroyLater.unref();
  socket.once('close', () => clearTimeout(destroyLater));
}
