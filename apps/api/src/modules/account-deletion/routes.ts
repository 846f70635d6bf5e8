import { deleteAccountMessages, endpoints } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import { callerAt } from '../../http/request-caller';
import type { AccountDeletionService } from './service';

/** "Delete account". HTTP only: parse, call the service, reply. */
export const accountDeletionRoutes: FastifyPluginAsyncZod<{
  accountDeletionService: AccountDeletionService;
}> = async function accountDeletionRoutes(app, { accountDeletionService }) {
  serveEndpoint(app, endpoints.deleteAccount, async function deleteAccount(request) {
    await accountDeletionService.deleteAccount(
      { ...callerOf(request), ...request.body },
      callerAt(request),
    );
    return { message: deleteAccountMessages.deleted };
  });
};
