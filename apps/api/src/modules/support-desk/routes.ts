// Every /ops call (ADR 020): each passes the session check, then the desk's guard (an operator
// with a second factor proved within 12 hours), then its own role rule in the service.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { createDeskGuard } from '../operators';
import { deskActionRoutes } from './action-routes';
import { memberRoutes } from './member-routes';
import type { SupportDeskDependencies } from './rules';

export const supportDeskRoutes: FastifyPluginAsyncZod<SupportDeskDependencies> =
  async function supportDeskRoutes(app, deps) {
    const deskGuard = createDeskGuard(deps.db);
    // Finding a member and reading his story; changing something for him.
    await app.register(memberRoutes, { ...deps, deskGuard });
    await app.register(deskActionRoutes, { ...deps, deskGuard });
  };
