// Who is asking, from a request: the client's network, its User-Agent, its page's language.
import type { FastifyRequest } from 'fastify';

import { type Caller, callerFrom } from '../security/client-address';
import { requestLocale } from './request-locale';

/** The client network the limits count against (TRUST_PROXY decides how its address is read). */
export function callerAt(request: FastifyRequest): Caller {
  return callerFrom(request.ip, request.headers['user-agent'], requestLocale(request));
}
