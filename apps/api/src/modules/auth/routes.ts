import { endpoints } from '@kegel/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { AppError } from '../../errors';
import { callerLeftSignal } from '../../http/caller-left';
import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import { callerAt } from '../../http/request-caller';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import type { AuthService } from './service';

export interface AuthRoutesOptions {
  authService: AuthService;
}

/** An onRequest hook: so many calls per client network and window, then 429 with Retry-After. */
export function limitRequestsPerAddress(rateLimiter: RateLimiter, rule: RateLimitRule) {
  return async function limitRequestsPerAddress(request: FastifyRequest): Promise<void> {
    const result = await rateLimiter.hit(rule, callerAt(request).clientAddress);
    if (!result.isAllowed) {
      throw new AppError(
        429,
        'Too many requests. Please try again later.',
        result.retryAfterSeconds,
      );
    }
  };
}

/** The account calls. HTTP only: parse, call the service, reply. */
export const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async function authRoutes(
  app,
  { authService },
) {
  serveEndpoint(app, endpoints.register, async function register(request) {
    return authService.register(request.body, callerAt(request));
  });

  serveEndpoint(app, endpoints.login, async function login(request, reply) {
    return authService.login(request.body, callerAt(request), callerLeftSignal(reply));
  });

  serveEndpoint(app, endpoints.refresh, async function refresh(request) {
    return authService.refresh(request.body.refreshToken);
  });

  serveEndpoint(app, endpoints.logout, async function logout(request) {
    await authService.logout(request.body.refreshToken);
    return { message: 'Signed out' };
  });

  serveEndpoint(app, endpoints.requestPasswordReset, async function requestPasswordReset(request) {
    return {
      message: await authService.requestPasswordReset(request.body.email, callerAt(request)),
    };
  });

  serveEndpoint(app, endpoints.confirmPasswordReset, async function confirmPasswordReset(request) {
    await authService.confirmPasswordReset(request.body, callerAt(request));
    return { message: 'Password changed' };
  });

  serveEndpoint(app, endpoints.changePassword, async function changePassword(request) {
    await authService.changePassword({ ...callerOf(request), ...request.body }, callerAt(request));
    return { message: 'Password changed successfully' };
  });

  serveEndpoint(app, endpoints.requestEmailChange, async function requestEmailChange(request) {
    await authService.requestEmailChange(
      { userId: callerOf(request).userId, ...request.body },
      callerAt(request),
    );
    return { message: 'Confirmation email sent successfully' };
  });

  serveEndpoint(app, endpoints.confirmEmailChange, async function confirmEmailChange(request) {
    await authService.confirmEmailChange(request.body);
    return { message: 'Email successfully changed' };
  });

  serveEndpoint(app, endpoints.cancelEmailChange, async function cancelEmailChange(request) {
    return { message: await authService.cancelEmailChange(request.body) };
  });

  serveEndpoint(app, endpoints.reportSignIn, async function reportSignIn(request) {
    return { message: await authService.reportSignIn(request.body) };
  });
};
