// What a support desk route takes from its request for the service: the operator (set by the
// desk's guard) and where the call came from, for the audit trail.
import type { FastifyRequest } from 'fastify';

import { operatorOf } from '../operators';
import type { DeskAction } from './rules';

export function deskActionOf(request: FastifyRequest): DeskAction {
  return {
    operator: operatorOf(request),
    origin: { requestId: request.id, clientAddress: request.ip },
  };
}
