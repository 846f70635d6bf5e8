// Whether the client is still there for the answer. Fastify's `request.signal` cannot tell: it
// follows the request stream's 'close', which Node emits as soon as the body has been read, so it
// aborts on every call with a body. The response's 'close' before its end is the client leaving.
import type { FastifyReply } from 'fastify';

/** Aborts when the connection closes before the answer has been sent in full. */
export function callerLeftSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', function onResponseClose() {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
