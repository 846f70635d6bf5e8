// The mails about sign-ins (ADR 019): the notice of a sign-in from a new device or network, with
// its "This wasn't me" link, and the reset link mailed once that link is used.
import { DEFAULT_LOCALE, type PageLocale } from '@kegel/contract/i18n';

import {
  formatUtcMoment,
  type MailKey,
  mailTextFor,
  render,
  type RenderedEmail,
} from './templates';

/** How each sign-in method is named in a notice ("How: with {method}"). */
const METHOD_NAMES: Readonly<Record<string, MailKey>> = {
  password: 'newSignIn.method.password',
  google: 'newSignIn.method.google',
  apple: 'newSignIn.method.apple',
  passkey: 'newSignIn.method.passkey',
  'two-step': 'newSignIn.method.twoStep',
};

/** A sign-in method as a notice names it in `locale`; one it does not know, as recorded. */
export function signInMethodName(method: string, locale: PageLocale = DEFAULT_LOCALE): string {
  const key = Object.hasOwn(METHOD_NAMES, method) ? METHOD_NAMES[method] : undefined;
  return key ? mailTextFor(locale)(key) : method;
}

export function newSignInEmail(input: {
  signedInAt: Date;
  method: string;
  device: string;
  clientAddress: string;
  notMeLink: string;
  linkValidUntil: Date;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('newSignIn.subject'),
    {
      heading: text('newSignIn.heading'),
      paragraphs: [
        text('newSignIn.newPlace'),
        text('newSignIn.when', { moment: formatUtcMoment(input.signedInAt, locale) }),
        text('newSignIn.how', { method: signInMethodName(input.method, locale) }),
        text('newSignIn.device', { device: input.device }),
        text('newSignIn.address', { address: input.clientAddress }),
        text('newSignIn.ifYou'),
        text('newSignIn.ifNotYou', { until: formatUtcMoment(input.linkValidUntil, locale) }),
      ],
      action: { label: text('newSignIn.action'), url: input.notMeLink },
      footnote: text('shared.questions', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}

/** After "This wasn't me": the way back in, to the account's own address. */
export function signInNotMeResetEmail(input: {
  link: string;
  validMinutes: number;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const locale = input.locale ?? DEFAULT_LOCALE;
  const text = mailTextFor(locale);
  return render(
    text('signInNotMeReset.subject'),
    {
      heading: text('signInNotMeReset.heading'),
      paragraphs: [
        text('signInNotMeReset.secured'),
        text('signInNotMeReset.choose', { minutes: input.validMinutes }),
      ],
      action: { label: text('shared.chooseNewPassword'), url: input.link },
      footnote: text('signInNotMeReset.footnote', { supportEmail: input.supportEmail }),
    },
    locale,
  );
}
