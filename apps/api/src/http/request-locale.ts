// The language of a request: what its answer's texts are in, and what a new account or checkout
// takes. The web app sends the page's language as Accept-Language (the footer's switcher or the
// browser's), the mobile app its phone's; nothing sent is English.
import {
  isLocale,
  type Locale,
  negotiateLocale,
  type PageLocale,
  PSEUDO_LOCALE,
} from '@kegel/contract/i18n';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The language to keep for the caller (a new account, a checkout): one the product speaks. */
export function requestLocale(request: Pick<FastifyRequest, 'headers'>): Locale {
  return negotiateLocale(request.headers['accept-language']);
}

/**
 * The language to answer the caller's texts in: the negotiated one, or the pseudo-locale for a
 * request that asks for exactly `en-XA` (a test of the pages under it; never negotiated).
 */
export function answerLocale(request: Pick<FastifyRequest, 'headers'>): PageLocale {
  const asked = request.headers['accept-language'];
  return asked?.trim() === PSEUDO_LOCALE ? PSEUDO_LOCALE : negotiateLocale(asked);
}

/**
 * Marks an answer that carries text: caches keep one copy per Accept-Language, and the answer
 * names its language. Answers the locale to word the texts in.
 */
export function answerInCallersLanguage(request: FastifyRequest, reply: FastifyReply): PageLocale {
  const locale = answerLocale(request);
  void reply.header('vary', varyWithAcceptLanguage(reply.getHeader('vary')));
  void reply.header('content-language', locale);
  return locale;
}

function varyWithAcceptLanguage(current: string | number | string[] | undefined): string {
  const names = [current ?? '']
    .flat()
    .join(',')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.some((name) => name === '*' || name.toLowerCase() === 'accept-language')) {
    return names.join(', ');
  }
  return [...names, 'Accept-Language'].join(', ');
}

/** A member's stored language, else the one his request asks for: what a mail to him is in. */
export function storedOrRequestLocale(
  stored: string | null | undefined,
  request: Pick<FastifyRequest, 'headers'>,
): Locale {
  return isLocale(stored) ? stored : requestLocale(request);
}
