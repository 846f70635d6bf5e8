// The mails the support desk's actions send the member (ADR 020): each change an operator makes
// to his premium or his sessions is told to him, with the reason the operator gave.
import { formatUtcMoment, render, type RenderedEmail } from './templates';

import type { PageLocale } from '@kegel/contract/i18n';
function daysText(days: number): string {
  return days === 1 ? '1 day' : `${days} days`;
}

function premiumEndText(endsAt: Date | null): string {
  return endsAt
    ? `Your premium now runs until ${formatUtcMoment(endsAt)}.`
    : 'You have no premium days left.';
}

export function premiumDaysGrantedEmail(input: {
  days: number;
  reason: string;
  endsAt: Date | null;
  dashboardUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  const more = input.days === 1 ? '1 more day' : `${input.days} more days`;
  return render(`You have ${more} of premium`, {
    heading: `You have ${more} of premium`,
    paragraphs: [
      `Our support team added ${daysText(input.days)} of premium to your Kegel Coach account. Reason: ${input.reason}`,
      premiumEndText(input.endsAt),
    ],
    action: { label: 'Open your dashboard', url: input.dashboardUrl },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

export function premiumGrantRemovedEmail(input: {
  days: number;
  reason: string;
  endsAt: Date | null;
  dashboardUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Premium days granted by our support team were removed', {
    heading: 'Granted premium days were removed',
    paragraphs: [
      `Our support team removed ${daysText(input.days)} of premium it had granted your Kegel Coach account. Reason: ${input.reason}`,
      premiumEndText(input.endsAt),
    ],
    action: { label: 'Open your dashboard', url: input.dashboardUrl },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

export function refundIssuedEmail(input: {
  amount: string;
  purchaseName: string;
  reason: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render(`We refunded ${input.amount} of your Kegel Coach purchase`, {
    heading: `We refunded ${input.amount}`,
    paragraphs: [
      `Our support team refunded ${input.amount} of your purchase "${input.purchaseName}". Reason: ${input.reason}`,
      'The money goes back to the card you paid with; your bank may take 5 to 10 business days to show it.',
    ],
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

export function signedOutBySupportEmail(input: {
  reason: string;
  signInUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('You were signed out of every device by our support team', {
    heading: 'You were signed out of every device by our support team',
    paragraphs: [
      `Our support team ended every session of your Kegel Coach account. Reason: ${input.reason}`,
      'Sign in again to go on. If you did not ask for this, change your password after signing in.',
    ],
    action: { label: 'Sign in', url: input.signInUrl },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}
