// The mails about sign-ins (ADR 019): the notice of a sign-in from a new device or network, with
// its "This wasn't me" link, and the reset link mailed once that link is used.
import { formatUtcMoment, render, type RenderedEmail } from './templates';

import type { PageLocale } from '@kegel/contract/i18n';
/** How each sign-in method is named in a notice. */
const METHOD_NAMES: Record<string, string> = {
  password: 'email and password',
  google: 'Google',
  apple: 'Apple',
  passkey: 'a passkey',
  'two-step': 'a two-step code',
};

export function signInMethodName(method: string): string {
  return METHOD_NAMES[method] ?? method;
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
  return render('New sign-in to your Kegel Coach account', {
    heading: 'New sign-in to your account',
    paragraphs: [
      'Your Kegel Coach account was just signed in to from a device or network it has not used in the last 30 days.',
      `When: ${formatUtcMoment(input.signedInAt)}`,
      `How: with ${signInMethodName(input.method)}`,
      `Device: ${input.device}`,
      `Address: ${input.clientAddress}`,
      'If this was you, there is nothing to do.',
      `If it was not, use the button below until ${formatUtcMoment(input.linkValidUntil)}: it signs out every device, clears your password, since whoever signed in may know it, and mails you a link to choose a new one.`,
    ],
    action: { label: "This wasn't me", url: input.notMeLink },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

/** After "This wasn't me": the way back in, to the account's own address. */
export function signInNotMeResetEmail(input: {
  link: string;
  validMinutes: number;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Choose a new password for your Kegel Coach account', {
    heading: 'Your account is secured',
    paragraphs: [
      "You said a sign-in to your Kegel Coach account wasn't you. Every device was signed out and the password was cleared.",
      `Choose a new password with the button below. The link works for ${input.validMinutes} minutes; after that, use “Forgot your password?” on the sign-in page.`,
    ],
    action: { label: 'Choose a new password', url: input.link },
    footnote: `If you sign in with Google or Apple, that still works. Questions? Write to ${input.supportEmail}.`,
  });
}
