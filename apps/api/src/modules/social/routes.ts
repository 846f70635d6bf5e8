import { endpoints, type SocialProvidersResponse } from '@kegel/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerAt } from '../../http/request-caller';
import type { SocialService } from './service';

export interface SocialRoutesOptions {
  socialService: SocialService;
  /** What the web app needs to start each provider's sign-in (null: switched off). */
  providers: SocialProvidersResponse;
  /** The budget of what the sign-in and registration pages fetch on every load. */
  limitSignInPageRequests: (request: FastifyRequest) => Promise<void>;
}

/** Google and Apple sign-in, and the providers' public settings for the web app. */
export const socialRoutes: FastifyPluginAsyncZod<SocialRoutesOptions> = async function socialRoutes(
  app,
  { socialService, providers, limitSignInPageRequests },
) {
  serveEndpoint(app, endpoints.signInWithGoogle, async function verifyGoogleCode(request) {
    return socialService.signInWithGoogle(request.body.code, callerAt(request));
  });

  serveEndpoint(app, endpoints.signInWithApple, async function verifyAppleToken(request) {
    return socialService.signInWithApple(request.body.token, callerAt(request));
  });

  // Fetched on every load of the sign-in and registration pages, by everyone behind an address
  // alike: a generous budget of their own, apart from the attempts one (docs/security.md).
  await app.register(async function signInPage(page) {
    page.addHook('onRequest', limitSignInPageRequests);

    serveEndpoint(page, endpoints.issueAppleNonce, async function issueAppleNonce(_request, reply) {
      void reply.header('cache-control', 'no-store');
      return { nonce: socialService.issueAppleNonce() };
    });

    serveEndpoint(
      page,
      endpoints.listSocialProviders,
      async function listSocialProviders(_request, reply) {
        void reply.header('cache-control', 'public, max-age=300');
        return providers;
      },
    );
  });
};
