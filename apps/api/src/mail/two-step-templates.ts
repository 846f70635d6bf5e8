// The mails about two-step sign-in (ADR 018): each change of it is told to the owner, as whoever
// holds a session (no password asked) could otherwise bind the account to his own phone, or
// take its recovery codes, unseen.
import { render, type RenderedEmail } from './templates';

import type { PageLocale } from '@kegel/contract/i18n';
export type TwoStepChange = 'turned-on' | 'turned-off' | 'recovery-codes-renewed';

const CHANGES: Record<TwoStepChange, { subject: string; heading: string; what: string }> = {
  'turned-on': {
    subject: 'Two-step sign-in was turned on for your Kegel Coach account',
    heading: 'Two-step sign-in was turned on',
    what: 'Two-step sign-in was just turned on for your Kegel Coach account: signing in with your password now also asks for a code from an authenticator app.',
  },
  'turned-off': {
    subject: 'Two-step sign-in was turned off for your Kegel Coach account',
    heading: 'Two-step sign-in was turned off',
    what: 'Two-step sign-in was just turned off for your Kegel Coach account: signing in with your password no longer asks for a code.',
  },
  'recovery-codes-renewed': {
    subject: 'New recovery codes for your Kegel Coach account',
    heading: 'Your recovery codes were renewed',
    what: 'New recovery codes for two-step sign-in were just made for your Kegel Coach account; the old ones no longer work.',
  },
};

export function twoStepChangedEmail(input: {
  change: TwoStepChange;
  settingsUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const change = CHANGES[input.change];
  return render(change.subject, {
    heading: change.heading,
    paragraphs: [
      change.what,
      'If this was not you, someone may be using your account: open Account Settings, change your password and sign out of your other devices.',
    ],
    action: { label: 'Open Account Settings', url: input.settingsUrl },
    footnote: `If this was not you, write to ${input.supportEmail} right away.`,
  });
}
