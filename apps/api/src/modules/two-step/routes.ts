import { endpoints, twoStepMessages } from '@kegel/contract';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

import { serveEndpoint } from '../../http/serve-endpoint';
import { callerOf } from '../../plugins/authenticate';
import { callerAt } from '../../http/request-caller';
import type { SecondFactor, TwoStepService } from './service';

/** The contract's "a code or a recovery code" (exactly one, checked by its schema) as one value. */
function secondFactorOf(body: { code?: string; recoveryCode?: string }): SecondFactor {
  return body.code !== undefined ? { code: body.code } : { recoveryCode: body.recoveryCode ?? '' };
}

/** Two-step sign-in. HTTP only: parse, call the service, reply. */
export const twoStepRoutes: FastifyPluginAsyncZod<{ twoStepService: TwoStepService }> =
  async function twoStepRoutes(app, { twoStepService }) {
    serveEndpoint(app, endpoints.setUpTwoStep, async function setUpTwoStep(request, reply) {
      // The secret must not rest in any cache on the way.
      void reply.header('cache-control', 'no-store');
      return twoStepService.setUp(callerOf(request).account);
    });

    serveEndpoint(app, endpoints.confirmTwoStep, async function confirmTwoStep(request, reply) {
      void reply.header('cache-control', 'no-store');
      const recoveryCodes = await twoStepService.confirm(
        callerOf(request).userId,
        request.body.code,
        callerAt(request),
      );
      return { recoveryCodes };
    });

    serveEndpoint(app, endpoints.turnOffTwoStep, async function turnOffTwoStep(request) {
      await twoStepService.turnOff(
        callerOf(request).userId,
        secondFactorOf(request.body),
        callerAt(request),
      );
      return { message: twoStepMessages.turnedOff };
    });

    serveEndpoint(
      app,
      endpoints.renewRecoveryCodes,
      async function renewRecoveryCodes(request, reply) {
        void reply.header('cache-control', 'no-store');
        const recoveryCodes = await twoStepService.renewRecoveryCodes(
          callerOf(request).userId,
          request.body.code,
          callerAt(request),
        );
        return { recoveryCodes };
      },
    );

    serveEndpoint(app, endpoints.stepUp, async function stepUp(request, reply) {
      void reply.header('cache-control', 'no-store');
      const { userId, sessionId } = callerOf(request);
      return twoStepService.stepUp({ userId, sessionId }, request.body.code, callerAt(request));
    });

    serveEndpoint(app, endpoints.verifyTwoStep, async function verifyTwoStep(request) {
      const { mfaToken, ...codes } = request.body;
      return twoStepService.verifySignIn({ mfaToken, ...secondFactorOf(codes) }, callerAt(request));
    });
  };
