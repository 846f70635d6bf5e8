// The desk's reads: finding a member, his story and timeline, viewing as him, and the audit
// trail. Each call passes the session check, then the desk's guard (routes.ts).
import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { answerLocale } from '../../http/request-locale';
import { type AfterSignInCheck, serveEndpoint } from '../../http/serve-endpoint';
import { listAudit } from './audit-list';
import { deskActionOf } from './desk-request';
import { searchMembers } from './member-search';
import { readMemberStory, viewAsMember } from './member-story';
import { readMemberTimeline } from './member-timeline';
import type { SupportDeskDependencies } from './rules';

export const memberRoutes: FastifyPluginAsyncZod<
  SupportDeskDependencies & { deskGuard: AfterSignInCheck }
> = async function memberRoutes(app, { deskGuard, ...deps }) {
  const checks = [deskGuard];

  serveEndpoint(
    app,
    endpoints.searchMembers,
    async function findMembers(request) {
      return { data: await searchMembers(deps, request.query.query) };
    },
    checks,
  );

  serveEndpoint(
    app,
    endpoints.getMember,
    async function getMember(request) {
      return readMemberStory(deps, deskActionOf(request), request.params.id);
    },
    checks,
  );

  serveEndpoint(
    app,
    endpoints.getMemberTimeline,
    async function getMemberTimeline(request) {
      return readMemberTimeline(deps, deskActionOf(request), request.params.id, {
        cursor: request.query.cursor,
        locale: answerLocale(request),
      });
    },
    checks,
  );

  serveEndpoint(
    app,
    endpoints.viewAsMember,
    async function viewAsTheMember(request) {
      return viewAsMember(deps, deskActionOf(request), request.params.id);
    },
    checks,
  );

  serveEndpoint(
    app,
    endpoints.listAudit,
    async function listAuditRows(request) {
      return listAudit(deps.db, request.query);
    },
    checks,
  );
};
