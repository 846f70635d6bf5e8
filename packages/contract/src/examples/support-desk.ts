// Examples of the support desk's calls (call-example.ts says what an example is): Sam, an admin,
// looks after Alex. The desk's answers come from the contract where it writes them, and from the
// API's support-desk module word for word where it does not (member-mails.ts).
import type { CallExamples } from './call-example';
import { memberProfile, memberPurchaseItems } from './member';
import { memberStory, memberTimelinePage } from './support-desk-member';
import {
  APPLE_PURCHASE_ENDS_AT,
  GRANT_DAYS,
  GRANT_ID,
  GRANT_NAME,
  GRANT_REASON,
  GRANTED_AT,
  MEMBER_EMAIL,
  MEMBER_ID,
  NOTE_ID,
  NOTE_TEXT,
  NOTED_AT,
  OPERATOR_CODE,
  OPERATOR_EMAIL,
  OPERATOR_ID,
  OPERATOR_STEPPED_UP_AT,
  PREMIUM_ENDS_AT,
  REGISTERED_AT,
  STRIPE_PURCHASE_ID,
  STRIPE_REFUND_ID,
} from './story';

/** 12 hours after Sam proved his second factor. */
const DESK_OPEN_UNTIL = '2026-11-26T21:02:44.107Z';

export const supportDeskExamples: Pick<
  CallExamples,
  | 'operatorStatus'
  | 'stepUp'
  | 'searchMembers'
  | 'getMember'
  | 'getMemberTimeline'
  | 'viewAsMember'
  | 'grantDays'
  | 'removeGrant'
  | 'refundPurchase'
  | 'revokeMemberSessions'
  | 'resendMemberMail'
  | 'addMemberNote'
  | 'listAudit'
> = {
  operatorStatus: {
    response: {
      role: 'admin',
      hasSecondFactor: true,
      hasTwoStep: true,
      hasPasskey: false,
      secondFactorAt: OPERATOR_STEPPED_UP_AT,
      deskOpenUntil: DESK_OPEN_UNTIL,
      deskClosedUntil: null,
    },
  },
  stepUp: {
    body: { code: OPERATOR_CODE },
    response: { secondFactorAt: OPERATOR_STEPPED_UP_AT },
  },
  searchMembers: {
    query: { query: 'alex@' },
    response: {
      data: [
        {
          id: MEMBER_ID,
          email: MEMBER_EMAIL,
          createdAt: REGISTERED_AT,
          subscriptionEndDate: PREMIUM_ENDS_AT,
          matchedBy: 'email',
        },
      ],
    },
  },
  getMember: { params: { id: MEMBER_ID }, response: memberStory },
  // The first page (no cursor); its nextCursor asks for the next, older one.
  getMemberTimeline: { params: { id: MEMBER_ID }, query: {}, response: memberTimelinePage },
  viewAsMember: {
    params: { id: MEMBER_ID },
    response: { profile: memberProfile, purchases: memberPurchaseItems },
  },
  grantDays: {
    params: { id: MEMBER_ID },
    body: {
      days: GRANT_DAYS,
      reason: GRANT_REASON,
      idempotencyKey: '582ef84f-80c4-48f4-9560-ed3a1547c0f6',
    },
    response: {
      id: GRANT_ID,
      days: GRANT_DAYS,
      reason: GRANT_REASON,
      grantedAt: GRANTED_AT,
      name: GRANT_NAME,
      subscriptionEndDate: PREMIUM_ENDS_AT,
    },
  },
  // His premium ends again where his App Store week ends.
  removeGrant: {
    params: { id: GRANT_ID },
    body: { reason: 'Granted twice: the outage was already credited' },
    response: { subscriptionEndDate: APPLE_PURCHASE_ENDS_AT },
  },
  // Half the month back ($15.00 of $29.99); the days go when Stripe's event arrives.
  refundPurchase: {
    params: { id: STRIPE_PURCHASE_ID },
    body: { amountCents: 1500, reason: 'Could not use premium for two weeks (outage)' },
    response: { id: STRIPE_REFUND_ID, amountCents: 1500, currency: 'usd', status: 'succeeded' },
  },
  revokeMemberSessions: {
    params: { id: MEMBER_ID },
    body: { reason: 'Member reports his phone stolen' },
    response: { ended: 2 },
  },
  resendMemberMail: {
    params: { id: MEMBER_ID },
    body: { mail: 'password-reset' },
    response: { message: 'Password reset mail sent to the member' },
  },
  addMemberNote: {
    params: { id: MEMBER_ID },
    body: { text: NOTE_TEXT },
    response: { id: NOTE_ID, at: NOTED_AT },
  },
  listAudit: {
    query: { member: MEMBER_EMAIL, action: 'grant.add' },
    response: {
      data: [
        {
          id: '34b14262-f76c-4b58-a0dd-92d87be23330',
          sequence: 1482,
          at: GRANTED_AT,
          actor: { id: OPERATOR_ID, email: OPERATOR_EMAIL, role: 'admin' },
          action: 'grant.add',
          member: { id: MEMBER_ID, email: MEMBER_EMAIL },
          reason: GRANT_REASON,
          changes: {
            before: { subscriptionEndDate: APPLE_PURCHASE_ENDS_AT },
            after: { subscriptionEndDate: PREMIUM_ENDS_AT, grantId: GRANT_ID, days: GRANT_DAYS },
          },
          requestId: 'req-7f3',
          clientAddress: '192.0.2.18',
        },
      ],
      nextCursor: null,
    },
  },
};
