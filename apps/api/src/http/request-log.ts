// What the log says about a request. Emailed links are page addresses whose query carries a live
// code and an address (`/account/recover/new?email=…&code=…`, `/account/verify-email?newEmail=…`,
// `/purchase/complete?email=…`), and a log line travels to every log pipeline and whoever reads
// it, so a request is logged by its path alone, API calls included: the path and the request id
// are enough to follow a request, and a rule for every path cannot miss the next link someone adds.
import type { FastifyRequest } from 'fastify';

import { requestedUrlOf } from './router-errors';

/** The path of a request target, without its query (or a fragment, which browsers never send). */
export function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/**
 * What Fastify's own serializer logs of a request (less the accept-version header, unused here),
 * with the path in place of the whole URL.
 */
export function serializeRequestForLog(request: FastifyRequest) {
  return {
    method: request.method,
    // A request the router refused is routed again under another path: the log names its own.
    url: pathOf(requestedUrlOf(request.raw) ?? request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
