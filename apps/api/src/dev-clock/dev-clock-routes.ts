// `/dev/clock`: read and move the development clock (plugins/dev-clock.ts). Registered only
// outside production and answered only on this machine, like the local inbox: moving the clock
// ends every session and token at once.
import { createHash } from 'node:crypto';

import type { FastifyPluginAsync } from 'fastify';
import * as z from 'zod';

import { AppError } from '../errors';
import type { DevClock } from '../plugins/dev-clock';
import { isFromThisMachine } from '../security/loopback';
import { DEV_CLOCK_PAGE_STYLE, devClockPage } from './dev-clock-page';

/** At most a year per move: enough for any subscription, and no overflow in any date. */
const MAX_ADVANCE_SECONDS = 366 * 24 * 60 * 60;

const advanceBody = z.object({
  advanceSeconds: z.coerce
    .number()
    .int('advanceSeconds must be a whole number of seconds')
    .positive('advanceSeconds must be more than 0: the clock only moves forward')
    .max(MAX_ADVANCE_SECONDS, 'advanceSeconds must be at most a year (31622400)'),
});

const PAGE_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(DEV_CLOCK_PAGE_STYLE).digest('base64')}'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`;

export const devClockRoutes: FastifyPluginAsync<{ clock: DevClock }> =
  async function devClockRoutes(app, { clock }) {
    app.addHook('onRequest', async function onlyFromThisMachine(request) {
      if (!isFromThisMachine(request)) {
        throw new AppError(
          403,
          'The development clock answers only on the machine the server runs on.',
        );
      }
      // A page of another site open in the developer's browser must not move the clock with a
      // form of its own (a simple POST to localhost needs no CORS).
      const site = request.headers['sec-fetch-site'];
      if (
        request.method === 'POST' &&
        site !== undefined &&
        site !== 'same-origin' &&
        site !== 'none'
      ) {
        throw new AppError(403, 'The development clock moves only from its own page or a script.');
      }
    });
    // The page's form posts URL-encoded, which the API never takes elsewhere.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );

    app.get('/dev/clock', async function showClock(request, reply) {
      reply.header('cache-control', 'no-store');
      if (!wantsHtml(request.headers.accept)) return { now: clock.now().toISOString() };
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', PAGE_POLICY)
        .send(devClockPage(clock.now()));
    });

    app.post('/dev/clock', async function moveClock(request, reply) {
      const parsed = advanceBody.safeParse(fromForm(request.body));
      if (!parsed.success) {
        throw new AppError(400, parsed.error.issues[0]?.message ?? 'advanceSeconds is required');
      }
      const now = await clock.advance(parsed.data.advanceSeconds);
      reply.header('cache-control', 'no-store');
      if (request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
        return reply.redirect('/dev/clock', 303);
      }
      return { now: now.toISOString() };
    });
  };

/** A browser's navigation asks for HTML first; fetch, curl and tests take JSON. */
function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /^\s*text\/html/.test(accept);
}

/** The page's form gives hours and days as well as seconds; a script sends advanceSeconds. */
function fromForm(body: unknown): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const { advanceSeconds, advanceHours } = body as Record<string, unknown>;
  if (advanceSeconds === undefined && typeof advanceHours === 'string' && advanceHours !== '') {
    return { advanceSeconds: Math.round(Number(advanceHours) * 3600) };
  }
  return body;
}
