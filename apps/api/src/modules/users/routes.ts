import { endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { answerInCallersLanguage } from '../../http/request-locale';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import type { AuthService } from '../auth';
import type { UsersService } from './service';

/** The signed-in member's own account, and where he is signed in. */
export const userRoutes: FastifyPluginAsyncZod<{
  usersService: UsersService;
  authService: AuthService;
}> = async function userRoutes(app, { usersService, authService }) {
  serveEndpoint(app, endpoints.readProfile, async function readProfile(request) {
    return usersService.readProfile(callerOf(request).account);
  });

  serveEndpoint(app, endpoints.exportData, async function exportData(request, reply) {
    const data = await usersService.exportData(callerOf(request).userId);
    const day = data.exportedAt.slice(0, 10);
    void reply
      .header('content-disposition', `attachment; filename="kegel-coach-data-${day}.json"`)
      .header('cache-control', 'no-store');
    return data;
  });

  serveEndpoint(app, endpoints.readPreferences, async function readPreferences(request) {
    return usersService.readPreferences(callerOf(request).userId);
  });

  serveEndpoint(app, endpoints.updatePreferences, async function updatePreferences(request) {
    return usersService.updatePreferences(callerOf(request).userId, request.body);
  });

  serveEndpoint(app, endpoints.listSignIns, async function listSignIns(request, reply) {
    const locale = answerInCallersLanguage(request, reply);
    return { data: await authService.listSignIns(callerOf(request).userId, locale) };
  });

  serveEndpoint(app, endpoints.listSessions, async function listSessions(request, reply) {
    const locale = answerInCallersLanguage(request, reply);
    return { data: await authService.listSessions(callerOf(request), locale) };
  });

  serveEndpoint(app, endpoints.endSession, async function endSession(request) {
    await authService.endSession(callerOf(request), request.params.id);
    return { message: 'Signed out' };
  });

  serveEndpoint(
    app,
    endpoints.listEmailChangeUndoWindows,
    async function listEmailChangeUndoWindows(request) {
      return { undoWindows: await authService.listEmailChangeUndoWindows(callerOf(request)) };
    },
  );

  serveEndpoint(
    app,
    endpoints.closeEmailChangeUndoWindows,
    async function closeEmailChangeUndoWindows(request) {
      return { message: await authService.closeEmailChangeUndoWindows(callerOf(request)) };
    },
  );

  serveEndpoint(app, endpoints.endOtherSessions, async function endOtherSessions(request) {
    await authService.endOtherSessions(callerOf(request));
    return { message: 'Signed out of all other devices' };
  });
};
