// Every mail template with inputs that take each of its branches, for the tests that render them
// all (english-mail-templates.test.ts, mail-template-languages.test.ts). Member-typed values carry
// HTML characters and a backslash escape: the mail must show them as typed, escaped in HTML.
import type { PageLocale } from '@kegel/contract/i18n';

import { premiumEndingEmail } from '../../src/mail/premium-reminder-templates';
import { newSignInEmail, signInNotMeResetEmail } from '../../src/mail/sign-in-templates';
import {
  premiumDaysGrantedEmail,
  premiumGrantRemovedEmail,
  refundIssuedEmail,
  signedOutBySupportEmail,
} from '../../src/mail/support-desk-templates';
import {
  accountCreatedByPurchaseEmail,
  accountDeletedEmail,
  emailChangeAgainNoticeEmail,
  emailChangeConfirmationEmail,
  emailChangeNoticeEmail,
  emailChangeUndoneEmail,
  passkeyAddedEmail,
  passwordChangedEmail,
  passwordResetEmail,
  type RenderedEmail,
  signInMethodAddedEmail,
} from '../../src/mail/templates';
import { twoStepChangedEmail } from '../../src/mail/two-step-templates';

const SUPPORT = 'support@kegel.example';
const MOMENT = new Date('2026-11-28T16:05:00Z');
const LATER = new Date('2026-12-05T09:30:00Z');
/** What an operator or a member may type: HTML, quotes, and a sequence Lingui would decode. */
const TYPED = `Outage <b>"A&B"</b> it's C:\\x41 \\u0042 {curly}`;

export type TemplateCase = readonly [name: string, render: (locale?: PageLocale) => RenderedEmail];

export const TEMPLATE_CASES: readonly TemplateCase[] = [
  [
    'password reset',
    (locale) =>
      passwordResetEmail({
        link: 'https://kegel.example/auth/reset?code=a&b',
        validMinutes: 60,
        locale,
      }),
  ],
  [
    'email change confirmation',
    (locale) =>
      emailChangeConfirmationEmail({
        link: 'https://kegel.example/confirm?code=1',
        newEmail: 'new<x>@example.com',
        locale,
      }),
  ],
  [
    'email change notice',
    (locale) =>
      emailChangeNoticeEmail({
        newEmail: 'new@example.com',
        cancelLink: 'https://kegel.example/cancel?code=2',
        undoableUntil: LATER,
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  [
    'email change again notice',
    (locale) =>
      emailChangeAgainNoticeEmail({
        currentEmail: 'current@example.com',
        newEmail: 'newer@example.com',
        cancelLink: 'https://kegel.example/cancel?code=3',
        undoableUntil: LATER,
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  [
    'email change undone',
    (locale) =>
      emailChangeUndoneEmail({
        previousEmail: 'before@example.com',
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  ['password changed', (locale) => passwordChangedEmail({ supportEmail: SUPPORT, locale })],
  [
    'account created by purchase',
    (locale) =>
      accountCreatedByPurchaseEmail({
        email: 'buyer@example.com',
        password: 'x7$Kq<9>&z',
        signInUrl: 'https://kegel.example/auth/login',
        planName: '3 months',
        locale,
      }),
  ],
  ...(['Google', 'Apple'] as const).flatMap((provider) =>
    [false, true].map((passwordRemoved): TemplateCase => [
      `sign-in method added (${provider}, password removed: ${passwordRemoved})`,
      (locale) =>
        signInMethodAddedEmail({
          provider,
          passwordRemoved,
          signInUrl: 'https://kegel.example/auth/login',
          supportEmail: SUPPORT,
          locale,
        }),
    ]),
  ),
  [
    'passkey added',
    (locale) =>
      passkeyAddedEmail({
        passkeyName: TYPED,
        settingsUrl: 'https://kegel.example/account',
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  ...[false, true].map((hadAppStoreSubscription): TemplateCase => [
    `account deleted (App Store subscription: ${hadAppStoreSubscription})`,
    (locale) => accountDeletedEmail({ hadAppStoreSubscription, supportEmail: SUPPORT, locale }),
  ]),
  [
    'premium ending',
    (locale) =>
      premiumEndingEmail({
        endsAt: MOMENT,
        purchaseUrl: 'https://kegel.example/purchase',
        oneClickUnsubscribeUrl: 'https://kegel.example/api/unsubscribe?token=t',
        unsubscribePageUrl: 'https://kegel.example/unsubscribe?token=t',
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  ...['password', 'google', 'apple', 'passkey', 'two-step', 'carrier-pigeon'].map(
    (method): TemplateCase => [
      `new sign-in (${method})`,
      (locale) =>
        newSignInEmail({
          signedInAt: MOMENT,
          method,
          device: `Firefox on Linux ${TYPED}`,
          clientAddress: '203.0.113.7',
          notMeLink: 'https://kegel.example/account/sign-in-not-me?code=4',
          linkValidUntil: LATER,
          supportEmail: SUPPORT,
          locale,
        }),
    ],
  ),
  [
    'sign-in not me reset',
    (locale) =>
      signInNotMeResetEmail({
        link: 'https://kegel.example/auth/reset?code=5',
        validMinutes: 60,
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  ...[1, 7, 3650].flatMap((days) =>
    [MOMENT, null].flatMap((endsAt): TemplateCase[] => [
      [
        `premium days granted (${days}, ends: ${endsAt !== null})`,
        (locale) =>
          premiumDaysGrantedEmail({
            days,
            reason: TYPED,
            endsAt,
            dashboardUrl: 'https://kegel.example/dashboard',
            supportEmail: SUPPORT,
            locale,
          }),
      ],
      [
        `premium grant removed (${days}, ends: ${endsAt !== null})`,
        (locale) =>
          premiumGrantRemovedEmail({
            days,
            reason: TYPED,
            endsAt,
            dashboardUrl: 'https://kegel.example/dashboard',
            supportEmail: SUPPORT,
            locale,
          }),
      ],
    ]),
  ),
  [
    'refund issued',
    (locale) =>
      refundIssuedEmail({
        amount: '$12.99',
        purchaseName: 'Premium — 3 months',
        reason: TYPED,
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  [
    'signed out by support',
    (locale) =>
      signedOutBySupportEmail({
        reason: TYPED,
        signInUrl: 'https://kegel.example/auth/login',
        supportEmail: SUPPORT,
        locale,
      }),
  ],
  ...(['turned-on', 'turned-off', 'recovery-codes-renewed'] as const).map(
    (change): TemplateCase => [
      `two-step changed (${change})`,
      (locale) =>
        twoStepChangedEmail({
          change,
          settingsUrl: 'https://kegel.example/account',
          supportEmail: SUPPORT,
          locale,
        }),
    ],
  ),
];
