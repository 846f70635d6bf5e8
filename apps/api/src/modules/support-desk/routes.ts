// Every /ops call (ADR 020): each passes the session check, then the desk's guard (an operator
// with a second factor proved within 12 hours), then its own role rule in the service.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { createDeskGuard } from '../operators';
import { memberRoutes } from './member-routes';
import type { SupportDeskDependencies } from './rules';

export const supportDeskRoutes: FastifyPluginAsyncZod<SupportDeskDependencies> =
  async function supportDeskRoutes(app, deps) {
    const deskGuard = createDeskGuard(deps.db);
    await app.register(memberRoutes, { ...deps, deskGuard });
    // The calls are added by the desk's features (member-routes.ts, action-routes.ts).
    void deskGuard;
    void app;
  };
