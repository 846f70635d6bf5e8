// The support desk's changes (ADR 020): grants, their removal, refunds, signing a member out,
// mails sent again and notes. Each passes the desk's guard; its role rule is in its service.
import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { type AfterSignInCheck, serveEndpoint } from '../../http/serve-endpoint';
import { deskActionOf } from './desk-request';
import { signMemberOutEverywhere } from './member-sessions';
import { resendMemberMail } from './member-mails';
import { addMemberNote } from './notes';
import { grantPremiumDays, removePremiumGrant } from './premium-grants';
import { refundPurchase } from './refunds';
import type { SupportDeskDependencies } from './rules';

export const deskActionRoutes: FastifyPluginAsyncZod<
  SupportDeskDependencies & { deskGuard: AfterSignInCheck }
> = async function deskActionRoutes(app, { deskGuard, ...deps }) {
  const guarded = [deskGuard];
  serveEndpoint(
    app,
    endpoints.grantDays,
    async function grantDays(request) {
      return grantPremiumDays(deps, deskActionOf(request), request.params.id, request.body);
    },
    guarded,
  );
  serveEndpoint(
    app,
    endpoints.removeGrant,
    async function removeGrant(request) {
      return removePremiumGrant(
        deps,
        deskActionOf(request),
        request.params.id,
        request.body.reason,
      );
    },
    guarded,
  );
  serveEndpoint(
    app,
    endpoints.refundPurchase,
    async function refund(request) {
      return refundPurchase(deps, deskActionOf(request), request.params.id, request.body);
    },
    guarded,
  );
  serveEndpoint(
    app,
    endpoints.revokeMemberSessions,
    async function revokeMemberSessions(request) {
      const { id } = request.params;
      return signMemberOutEverywhere(deps, deskActionOf(request), id, request.body.reason);
    },
    guarded,
  );
  serveEndpoint(
    app,
    endpoints.resendMemberMail,
    async function resendMail(request) {
      const message = await resendMemberMail(
        deps,
        deskActionOf(request),
        request.params.id,
        request.body,
      );
      return { message };
    },
    guarded,
  );
  serveEndpoint(
    app,
    endpoints.addMemberNote,
    async function addNote(request) {
      return addMemberNote(deps, deskActionOf(request), request.params.id, request.body.text);
    },
    guarded,
  );
};
