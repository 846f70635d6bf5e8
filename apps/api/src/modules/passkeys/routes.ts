import { endpoints } from '@kegel/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import { callerAt } from '../../http/request-caller';
import type { PasskeysService } from './service';

export interface PasskeySignInRoutesOptions {
  passkeysService: PasskeysService;
  /** The budget of what the sign-in page fetches on every load (its passkey options among it). */
  limitSignInPageRequests: (request: FastifyRequest) => Promise<void>;
}

/** Adding a passkey and signing in with one: the calls under /auth/passkeys. */
export const passkeySignInRoutes: FastifyPluginAsyncZod<PasskeySignInRoutesOptions> =
  async function passkeySignInRoutes(app, { passkeysService, limitSignInPageRequests }) {
    serveEndpoint(
      app,
      endpoints.passkeyRegistrationOptions,
      async function passkeyRegistrationOptions(request, reply) {
        const { userId, sessionId, account } = callerOf(request);
        void reply.header('cache-control', 'no-store');
        return passkeysService.registrationOptions(
          { userId, sessionId, email: account.email, locale: account.locale },
          request.body?.code,
          callerAt(request),
        );
      },
    );

    serveEndpoint(app, endpoints.registerPasskey, async function registerPasskey(request) {
      const { userId, sessionId, account } = callerOf(request);
      return passkeysService.register(
        { userId, sessionId, email: account.email, locale: account.locale },
        request.body,
        callerAt(request),
      );
    });

    serveEndpoint(app, endpoints.signInWithPasskey, async function signInWithPasskey(request) {
      return passkeysService.signIn(request.body.response, callerAt(request));
    });

    // Asked for on every load of the sign-in page (the email field offers passkeys at once).
    await app.register(async function signInPage(page) {
      page.addHook('onRequest', limitSignInPageRequests);
      serveEndpoint(
        page,
        endpoints.passkeySignInOptions,
        async function passkeySignInOptions(_request, reply) {
          void reply.header('cache-control', 'no-store');
          return passkeysService.signInOptions();
        },
      );
    });
  };

/** The member's list of passkeys: the calls under /users/passkeys. */
export const passkeyAccountRoutes: FastifyPluginAsyncZod<{ passkeysService: PasskeysService }> =
  async function passkeyAccountRoutes(app, { passkeysService }) {
    serveEndpoint(app, endpoints.listPasskeys, async function listPasskeys(request) {
      return { data: await passkeysService.list(callerOf(request).userId) };
    });

    serveEndpoint(app, endpoints.renamePasskey, async function renamePasskey(request) {
      return passkeysService.rename(callerOf(request).userId, request.params.id, request.body.name);
    });

    serveEndpoint(app, endpoints.removePasskey, async function removePasskey(request) {
      await passkeysService.remove(
        callerOf(request).userId,
        request.params.id,
        request.body?.code,
        callerAt(request),
      );
      return { message: 'Passkey removed' };
    });
  };
