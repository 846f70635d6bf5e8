import {
  AcknowledgementSchema,
  apiPaths,
  ChangeEmailRequestSchema,
  ChangePasswordRequestSchema,
  LoginRequestSchema,
  LogoutRequestSchema,
  RefreshRequestSchema,
  RegisterRequestSchema,
  ResetPasswordConfirmRequestSchema,
  ResetPasswordRequestSchema,
  TokenPairSchema,
  VerifyEmailRequestSchema,
} from '@kegel/contract';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';

import { AppError } from '../../errors';
import { callerOf } from '../../plugins/authenticate';
import type { RateLimiter, RateLimitRule } from '../../security/rate-limiter';
import type { AuthService } from './service';

export interface AuthRoutesOptions {
  authService: AuthService;
}

/**
 * Every /auth call from one client address (floods, credential stuffing): for the plugin that
 * holds the password and the Google/Apple routes.
 */
export function limitRequestsPerAddress(rateLimiter: RateLimiter, rule: RateLimitRule) {
  return async function limitRequestsPerAddress(request: FastifyRequest): Promise<void> {
    const result = await rateLimiter.hit(rule, request.ip);
    if (!result.isAllowed) {
      throw new AppError(
        429,
        'Too many requests. Please try again later.',
        result.retryAfterSeconds,
      );
    }
  };
}

/** The account calls of spec §7 and Decision 2. HTTP only: parse, call the service, reply. */
export const authRoutes: FastifyPluginAsyncZod<AuthRoutesOptions> = async function authRoutes(
  app,
  options,
) {
  const { authService } = options;

  const acknowledged = { response: { 200: AcknowledgementSchema } };

  app.post(
    apiPaths.register,
    {
      schema: {
        body: RegisterRequestSchema,
        response: { 201: z.object({ id: z.string(), email: z.string() }) },
      },
    },
    async function register(request, reply) {
      const user = await authService.register(request.body);
      return reply.code(201).send(user);
    },
  );

  app.post(
    apiPaths.login,
    { schema: { body: LoginRequestSchema, response: { 200: TokenPairSchema } } },
    async function login(request) {
      return authService.login(request.body);
    },
  );

  app.post(
    apiPaths.refresh,
    { schema: { body: RefreshRequestSchema, response: { 200: TokenPairSchema } } },
    async function refresh(request) {
      return authService.refresh(request.body.refreshToken);
    },
  );

  app.post(
    apiPaths.logout,
    { schema: { body: LogoutRequestSchema, ...acknowledged } },
    async function logout(request) {
      await authService.logout(request.body.refreshToken);
      return { message: 'Signed out' };
    },
  );

  app.post(
    apiPaths.resetPassword,
    { schema: { body: ResetPasswordRequestSchema, ...acknowledged } },
    async function requestPasswordReset(request) {
      return { message: await authService.requestPasswordReset(request.body.email) };
    },
  );

  app.post(
    apiPaths.resetPasswordConfirm,
    { schema: { body: ResetPasswordConfirmRequestSchema, ...acknowledged } },
    async function confirmPasswordReset(request) {
      await authService.confirmPasswordReset(request.body);
      return { message: 'Password changed' };
    },
  );

  app.post(
    apiPaths.changePassword,
    {
      preHandler: app.authenticate,
      schema: { body: ChangePasswordRequestSchema, ...acknowledged },
    },
    async function changePassword(request) {
      await authService.changePassword({ ...callerOf(request), ...request.body });
      return { message: 'Password changed successfully' };
    },
  );

  app.post(
    apiPaths.changeEmail,
    { preHandler: app.authenticate, schema: { body: ChangeEmailRequestSchema, ...acknowledged } },
    async function requestEmailChange(request) {
      await authService.requestEmailChange({ userId: callerOf(request).userId, ...request.body });
      return { message: 'Confirmation email sent successfully' };
    },
  );

  app.post(
    apiPaths.verifyEmail,
    { schema: { body: VerifyEmailRequestSchema, ...acknowledged } },
    async function confirmEmailChange(request) {
      await authService.confirmEmailChange(request.body);
      return { message: 'Email successfully changed' };
    },
  );
};
