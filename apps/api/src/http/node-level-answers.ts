// What Node's HTTP server answers by itself, before Fastify sees a request, answered here in the
// error shape with the security headers instead: an HTTP/1.1 request without Host (Node: an empty
// 400), an Expect the server cannot meet (Node: an empty 417) and CONNECT (Node: the connection
// closed without a word, which a client cannot tell from a crash). None of the texts repeats the
// request.
//
// Node's Host check is turned off (`requireHostHeader: false`, app.ts) so that the request goes
// through Fastify and its error handler; Expect and CONNECT Node hands to these listeners.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

import type { FastifyInstance } from 'fastify';

import { AppError } from '../errors';
import { closeConnection, errorAnswer, rawErrorAnswer } from './client-errors';

const MISSING_HOST_MESSAGE = 'An HTTP/1.1 request must name its Host.';
const UNMET_EXPECTATION_MESSAGE = 'The request’s Expect is not one this server meets.';
const CONNECT_MESSAGE = 'This server is no proxy: it answers no CONNECT.';

/** HTTP/1.1 requires Host (RFC 9112 §3.2); HTTP/1.0 did not have it, and is served without. */
function lacksRequiredHost(request: IncomingMessage): boolean {
  const isHttp11OrLater =
    request.httpVersionMajor > 1 ||
    (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1);
  return isHttp11OrLater && request.headers.host === undefined;
}

/** Answers in the error shape what Node would answer by itself (see the top of this file). */
export function answerWhatNodeAnswers(app: FastifyInstance): void {
  // preParsing, not onRequest: the security headers are set in an onRequest hook registered
  // later (plugins/security-headers.ts), which a refusal in an earlier hook would skip. No
  // handler has run by preParsing, and nothing before it needs the Host (request.host is '').
  app.addHook('preParsing', async function requireHost(request, reply) {
    if (!lacksRequiredHost(request.raw)) return;
    // A client that leaves out what HTTP/1.1 requires is not one to keep talking with, as Node
    // closes it too.
    reply.header('connection', 'close');
    throw new AppError(400, MISSING_HOST_MESSAGE);
  });
  // Node answers `Expect: 100-continue` itself (no checkContinue listener); any other Expect
  // comes here. The body it announced is not read, so the answer closes the connection
  // (`Connection: close`, as every answer written in client-errors.ts).
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const { statusCode, headers, body } = errorAnswer(417, UNMET_EXPECTATION_MESSAGE);
    response.writeHead(statusCode, headers).end(body);
  });
  // Node hands the socket over, its parser gone: the answer is written on it.
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    closeConnection(socket as Socket, rawErrorAnswer(405, CONNECT_MESSAGE));
  });
}
