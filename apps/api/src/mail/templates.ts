// The emails the product sends, each as a subject, a plain-text body and a branded HTML body.
// Every value put into HTML is escaped; links come from PUBLIC_URL, never from a request.

import type { PageLocale } from '@kegel/contract/i18n';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  /** Headers beyond the usual ones: List-Unsubscribe (mail/unsubscribe-headers.ts). */
  headers?: Record<string, string>;
}

const BRAND = 'Kegel Coach';

export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export interface Layout {
  heading: string;
  paragraphs: string[];
  action?: { label: string; url: string };
  footnote: string;
  /** A link under the footnote: how to stop this kind of mail. */
  footerLink?: { label: string; url: string };
}

export function render(subject: string, layout: Layout): RenderedEmail {
  const text = [
    layout.heading,
    '',
    ...layout.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(layout.action ? [`${layout.action.label}: ${layout.action.url}`, ''] : []),
    layout.footnote,
    ...(layout.footerLink ? [`${layout.footerLink.label}: ${layout.footerLink.url}`] : []),
    '',
    `— ${BRAND}`,
  ].join('\n');

  const button = layout.action
    ? `<p style="margin:28px 0"><a href="${escapeHtml(layout.action.url)}" style="display:inline-block;background:#0e7a61;color:#ffffff;text-decoration:none;font-weight:600;padding:14px 24px;border-radius:10px">${escapeHtml(layout.action.label)}</a></p>
       <p style="font-size:13px;color:#56677a">If the button does not work, paste this address into your browser:<br><span style="word-break:break-all">${escapeHtml(layout.action.url)}</span></p>`
    : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;background:#f4f7fa;font-family:-apple-system,'Segoe UI',Roboto,Arial,sans-serif;color:#1b2733">
  <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="padding:32px 12px"><tr><td align="center">
    <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:16px;border:1px solid #dbe2ea">
      <tr><td style="background:#0f2a43;border-radius:16px 16px 0 0;padding:20px 28px;color:#ffffff;font-size:20px;font-weight:700">${BRAND}</td></tr>
      <tr><td style="padding:28px">
        <h1 style="margin:0 0 16px;font-size:22px;color:#0f2a43">${escapeHtml(layout.heading)}</h1>
        ${layout.paragraphs.map((paragraph) => `<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(paragraph)}</p>`).join('\n        ')}
        ${button}
        <p style="margin:24px 0 0;font-size:13px;color:#56677a">${escapeHtml(layout.footnote)}</p>
        ${layout.footerLink ? `<p style="margin:12px 0 0;font-size:13px;color:#56677a"><a href="${escapeHtml(layout.footerLink.url)}" style="color:#56677a">${escapeHtml(layout.footerLink.label)}</a></p>` : ''}
      </td></tr>
    </table>
  </td></tr></table>
</body></html>`;
  return { subject, text, html };
}

export function passwordResetEmail(input: {
  link: string;
  validMinutes: number;
  locale?: PageLocale;
}): RenderedEmail {
  return render('Reset your Kegel Coach password', {
    heading: 'Reset your password',
    paragraphs: [
      'Someone (hopefully you) asked to reset the password of your Kegel Coach account.',
      `The link below works once and for ${input.validMinutes} minutes.`,
    ],
    action: { label: 'Choose a new password', url: input.link },
    footnote: 'If you did not ask for this, ignore this email: your password stays as it is.',
  });
}

export function emailChangeConfirmationEmail(input: {
  link: string;
  newEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Confirm your new email address', {
    heading: 'Confirm your new email address',
    paragraphs: [
      `Please confirm that ${input.newEmail} should become the email address of your Kegel Coach account.`,
    ],
    action: { label: 'Confirm this address', url: input.link },
    footnote: 'If you did not ask for this, ignore this email: nothing changes without your click.',
  });
}

/**
 * A moment in UTC, as a notice states it: the reader's time zone is unknown here, and UTC says
 * so rather than guessing ("November 28, 2026 at 4:05 PM (UTC)").
 */
export function formatUtcMoment(moment: Date): string {
  const formatted = new Intl.DateTimeFormat('en-US', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(moment);
  return `${formatted} (UTC)`;
}

export function emailChangeNoticeEmail(input: {
  newEmail: string;
  cancelLink: string;
  undoableUntil: Date;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Your Kegel Coach email address is being changed', {
    heading: 'A change of email address was requested',
    paragraphs: [
      `Someone signed in to your Kegel Coach account asked to change its email address to ${input.newEmail}.`,
      'The change happens only when the new address is confirmed.',
      `If this was not you, use the button below until ${formatUtcMoment(input.undoableUntil)}: it cancels the change (or undoes it, if it was already confirmed), signs out every device and clears the password, since whoever asked knows it. Then choose a new password with “Forgot your password?”.`,
    ],
    action: { label: 'This was not me', url: input.cancelLink },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

/**
 * To an address the account moved away from, whose "this wasn't me" link is still open, when a
 * further change is asked for: whoever made the first change may be making another.
 */
export function emailChangeAgainNoticeEmail(input: {
  currentEmail: string;
  newEmail: string;
  cancelLink: string;
  undoableUntil: Date;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Your Kegel Coach email address is being changed again', {
    heading: 'Another change of email address was requested',
    paragraphs: [
      `Your Kegel Coach account recently moved from this address to ${input.currentEmail}. Someone signed in to it has now asked to move it again, to ${input.newEmail}.`,
      `If you did not ask for these changes, use the button below until ${formatUtcMoment(input.undoableUntil)}: it gives the account back to this address, signs out every device and clears the password, since whoever asked knows it. Then choose a new password with “Forgot your password?”.`,
    ],
    action: { label: 'This was not me', url: input.cancelLink },
    footnote: `Questions? Write to ${input.supportEmail}.`,
  });
}

export function emailChangeUndoneEmail(input: {
  previousEmail: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('The email change of your Kegel Coach account was undone', {
    heading: 'The email change was undone',
    paragraphs: [
      `The Kegel Coach account that used this address went back to its previous address, ${input.previousEmail}: its holder said they had not asked for the change.`,
      'Every device was signed out and the password was cleared.',
    ],
    footnote: `If you did change the address yourself, write to ${input.supportEmail} and we will sort it out.`,
  });
}

export function passwordChangedEmail(input: {
  supportEmail: string;
  locale?: PageLocale;
}): RenderedEmail {
  return render('Your Kegel Coach password was changed', {
    heading: 'Your password was changed',
    paragraphs: [
      'The password of your Kegel Coach account was just changed, and your other devices were signed out.',
    ],
    footnote: `If this was not you, reset your password now and write to ${input.supportEmail}.`,
  });
}

export function accountCreatedByPurchaseEmail(input: {
  email: string;
  password: string;
  signInUrl: string;
  planName: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Your Kegel Coach premium and account', {
    heading: 'Welcome to Kegel Coach premium',
    paragraphs: [
      `Thank you for your purchase. Your Premium — ${input.planName} is active.`,
      `We created an account for ${input.email}. Sign in with this password: ${input.password}`,
      'Please change it after signing in, under Account Settings.',
    ],
    action: { label: 'Sign in', url: input.signInUrl },
    footnote: 'Use the same email and password in the Kegel Coach app.',
  });
}

export function signInMethodAddedEmail(input: {
  provider: 'Google' | 'Apple';
  passwordRemoved: boolean;
  signInUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render(`${input.provider} sign-in was added to your Kegel Coach account`, {
    heading: `You can now sign in with ${input.provider}`,
    paragraphs: [
      `Your Kegel Coach account was just signed in to with ${input.provider}, which confirmed that this address is yours. From now on, "Continue with ${input.provider}" opens this account.`,
      ...(input.passwordRemoved
        ? [
            'This address had never been confirmed before, so the password set when the account was created was removed and every device was signed out: it could have been set by someone else. To sign in with a password again, use "Forgot your password?" on the sign-in page.',
          ]
        : []),
    ],
    action: { label: 'Sign in', url: input.signInUrl },
    footnote: `If this was not you, write to ${input.supportEmail} right away.`,
  });
}

export function passkeyAddedEmail(input: {
  passkeyName: string;
  settingsUrl: string;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('A passkey was added to your Kegel Coach account', {
    heading: 'A passkey was added',
    paragraphs: [
      `A passkey named "${input.passkeyName}" was just added to your Kegel Coach account. It signs in to your account without a password.`,
      'If you did not add it, remove it in Account Settings → Passkeys, change your password and sign out of your other devices.',
    ],
    action: { label: 'Open Account Settings', url: input.settingsUrl },
    footnote: `If this was not you, write to ${input.supportEmail} right away.`,
  });
}

export function accountDeletedEmail(input: {
  hadAppStoreSubscription: boolean;
  supportEmail: string;
  /** The recipient's language (README, Languages); English when unknown. */
  locale?: PageLocale;
}): RenderedEmail {
  return render('Your Kegel Coach account was deleted', {
    heading: 'Your account was deleted',
    paragraphs: [
      'As you asked, your Kegel Coach account is deleted: every device was signed out, and your email, sign-in methods and personal details are erased.',
      'Records of your purchases are kept for our accounts, as the law requires, with no name or email attached.',
      ...(input.hadAppStoreSubscription
        ? [
            'Your App Store subscription is not cancelled by this. To stop paying, cancel it on your iPhone: Settings → your name → Subscriptions.',
          ]
        : []),
      'You are welcome back any time: this address can create a new account.',
    ],
    footnote: `If you did not ask for this, write to ${input.supportEmail} right away.`,
  });
}
