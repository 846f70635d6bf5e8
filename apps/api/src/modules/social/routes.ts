import {
  AppleVerifyTokenRequestSchema,
  apiPaths,
  GoogleVerifyTokenRequestSchema,
  SignInNonceResponseSchema,
  SocialProvidersResponseSchema,
  type SocialProvidersResponse,
  TokenPairSchema,
} from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import type { SocialService } from './service';

export interface SocialRoutesOptions {
  socialService: SocialService;
  /** What the web app needs to start each provider's sign-in (null: switched off). */
  providers: SocialProvidersResponse;
}

/**
 * Spec §7's Google and Apple sign-in calls (the spec spells the providers with a capital, the
 * issue in lower case: both answer), and the providers' public settings for the web app.
 */
export const socialRoutes: FastifyPluginAsyncZod<SocialRoutesOptions> = async function socialRoutes(
  app,
  options,
) {
  const { socialService, providers } = options;
  const tokenPair = { response: { 200: TokenPairSchema } };

  for (const path of [apiPaths.googleVerifyToken, '/auth/oauth/Google/verify-token']) {
    app.post(
      path,
      { schema: { body: GoogleVerifyTokenRequestSchema, ...tokenPair } },
      async function verifyGoogleCode(request) {
        return socialService.signInWithGoogle(request.body.code);
      },
    );
  }

  for (const path of [apiPaths.appleVerifyToken, '/auth/oauth/Apple/verify-token']) {
    app.post(
      path,
      { schema: { body: AppleVerifyTokenRequestSchema, ...tokenPair } },
      async function verifyAppleToken(request) {
        return socialService.signInWithApple(request.body.token);
      },
    );
  }

  app.post(
    apiPaths.appleNonce,
    { schema: { response: { 200: SignInNonceResponseSchema } } },
    async function issueAppleNonce(_request, reply) {
      void reply.header('cache-control', 'no-store');
      return { nonce: socialService.issueAppleNonce() };
    },
  );

  app.get(
    apiPaths.socialProviders,
    { schema: { response: { 200: SocialProvidersResponseSchema } } },
    async function listSocialProviders(_request, reply) {
      void reply.header('cache-control', 'public, max-age=300');
      return providers;
    },
  );
};
