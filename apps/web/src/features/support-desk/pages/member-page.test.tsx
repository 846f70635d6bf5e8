import {
  APPLE_REFUND_URL,
  type MemberStory,
  supportDeskMessages,
  type TimelineItem,
} from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp } from '../../../testing/render-app';
import { signInAsOperator } from '../../../testing/support-desk';

const MEMBER_ID = '8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69';
const DAY_MS = 24 * 60 * 60 * 1000;
const inDays = (days: number): string => new Date(Date.now() + days * DAY_MS).toISOString();

function story(): MemberStory {
  const purchase = {
    currency: 'usd',
    refundedCents: 0,
    createdAt: inDays(-3),
    startsAt: inDays(-3),
    revokedAt: null,
    revokedReason: null,
    paymentIntentId: null,
    refundable: false,
    grantId: null,
  };
  return {
    profile: {
      id: MEMBER_ID,
      email: 'member@example.com',
      createdAt: inDays(-30),
      emailVerifiedAt: inDays(-30),
      hasPassword: true,
      identities: [{ provider: 'google', email: 'member@gmail.example' }],
      twoStepEnabled: false,
      passkeys: 1,
      locale: null,
      stripeCustomerId: 'cus_123',
      operatorRole: null,
    },
    premium: { endsAt: inDays(40), source: 'Stripe', sourcePurchaseId: 'p-stripe' },
    activeSubscriptions: [],
    purchases: [
      {
        ...purchase,
        id: 'p-stripe',
        name: '1 Month',
        provider: 'Stripe',
        amountCents: 999,
        expiresAt: inDays(27),
        providerPaymentId: 'cs_test_1',
        paymentIntentId: 'pi_1',
        refundable: true,
      },
      {
        ...purchase,
        id: 'p-support',
        name: 'Granted by support: 7 days, outage',
        provider: 'Support',
        amountCents: 0,
        expiresAt: inDays(34),
        providerPaymentId: 'grant-1',
        grantId: '0d1c2b3a-4f5e-4a6b-8c7d-9e0f1a2b3c4d',
      },
      {
        ...purchase,
        id: 'p-apple',
        name: '1 Year',
        provider: 'Apple',
        amountCents: 4999,
        expiresAt: inDays(360),
        providerPaymentId: '2000000123456789',
      },
    ],
    appStoreSubscriptions: [],
  };
}

function timelineItem(index: number): TimelineItem {
  return {
    id: `t-${index}`,
    at: inDays(-index),
    kind: 'sign-in',
    title: `Signed in ${index}`,
    detail: null,
    actor: null,
  };
}

function openMember(role: 'support' | 'admin') {
  signInAsOperator(role);
  fakeApi.on('getMember', { body: story() });
  fakeApi.on('getMemberTimeline', { body: { data: [timelineItem(1)], nextCursor: null } });
  return renderApp(`/ops/members/${MEMBER_ID}`);
}

describe('/ops/members/:id for support', () => {
  it('shows his story with no admin control, and where App Store refunds are asked', async () => {
    openMember('support');
    const purchases = await screen.findByRole('table', { name: 'Purchases' });
    expect(within(purchases).queryByRole('button', { name: 'Refund' })).toBeNull();
    expect(within(purchases).queryByRole('button', { name: 'Remove grant' })).toBeNull();
    expect(within(purchases).getByText('$9.99')).toBeVisible();
    // Right under the App Store purchase, and under no other.
    const rows = within(purchases).getAllByRole('row');
    const appleIndex = rows.findIndex((row) => row.textContent.startsWith('1 Year'));
    const note = rows[appleIndex + 1]!;
    expect(note).toHaveTextContent(supportDeskMessages.appStoreRefund);
    expect(within(purchases).getAllByText(/refunded by Apple/)).toHaveLength(1);
    expect(within(note).getByRole('link', { name: APPLE_REFUND_URL })).toHaveAttribute(
      'href',
      APPLE_REFUND_URL,
    );
    expect(screen.getByRole('link', { name: 'View as member' })).toHaveAttribute(
      'href',
      `/ops/members/${MEMBER_ID}/view`,
    );
    expect(await screen.findByText('Signed in 1')).toBeVisible();
  });

  it('grants days within the limit, with the contract’s words under the fields, once per form', async () => {
    const { user } = openMember('support');
    await user.click(await screen.findByRole('button', { name: 'Grant days' }));
    const form = screen.getByRole('form', { name: 'Grant days' });
    expect(within(form).getByText(/Up to 31 days at a time/)).toBeVisible();

    await user.type(within(form).getByLabelText('Days'), '40');
    await user.click(within(form).getByRole('button', { name: 'Grant days' }));
    expect(await within(form).findByText(supportDeskMessages.supportGrantLimit)).toBeVisible();
    expect(within(form).getByText(supportDeskMessages.reasonRequired)).toBeVisible();
    expect(fakeApi.requestsTo('grantDays')).toHaveLength(0);

    fakeApi.on('grantDays', errorReply(503, 'The server is busy'));
    await user.clear(within(form).getByLabelText('Days'));
    await user.type(within(form).getByLabelText('Days'), '7');
    await user.type(within(form).getByLabelText('Reason'), 'service outage');
    await user.click(within(form).getByRole('button', { name: 'Grant days' }));
    expect(await findToast('The server is busy')).toBeVisible();

    // The retry of the same form carries the same key: the server grants once.
    fakeApi.on('grantDays', {
      status: 201,
      body: {
        id: 'g-1',
        days: 7,
        reason: 'service outage',
        grantedAt: new Date().toISOString(),
        name: 'Granted by support: 7 days, service outage',
        subscriptionEndDate: inDays(47),
      },
    });
    const storyReads = fakeApi.requestsTo('getMember').length;
    await user.click(within(form).getByRole('button', { name: 'Grant days' }));
    expect(await findToast('Days granted')).toBeVisible();
    const [failed, granted] = fakeApi.requestsTo('grantDays');
    expect(granted!.body).toEqual({
      days: 7,
      reason: 'service outage',
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect((failed!.body as { idempotencyKey: string }).idempotencyKey).toBe(
      (granted!.body as { idempotencyKey: string }).idempotencyKey,
    );
    // His story and timeline are read again.
    await screen.findByRole('button', { name: 'Grant days' });
    expect(fakeApi.requestsTo('getMember').length).toBeGreaterThan(storyReads);
  });

  it('shows the server’s refusal of the days under the field', async () => {
    const { user } = openMember('support');
    fakeApi.on('grantDays', errorReply(403, supportDeskMessages.supportGrantLimit));
    await user.click(await screen.findByRole('button', { name: 'Grant days' }));
    const form = screen.getByRole('form', { name: 'Grant days' });
    await user.type(within(form).getByLabelText('Days'), '30');
    await user.type(within(form).getByLabelText('Reason'), 'goodwill');
    await user.click(within(form).getByRole('button', { name: 'Grant days' }));
    expect(await within(form).findByText(supportDeskMessages.supportGrantLimit)).toBeVisible();
  });

  it('loads older timeline entries with the cursor', async () => {
    signInAsOperator('support');
    fakeApi.on('getMember', { body: story() });
    let page = 0;
    fakeApi.on('getMemberTimeline', () => {
      page += 1;
      return page === 1
        ? { body: { data: [timelineItem(1), timelineItem(2)], nextCursor: 'cursor-2' } }
        : { body: { data: [timelineItem(3)], nextCursor: null } };
    });
    const { user } = renderApp(`/ops/members/${MEMBER_ID}`);
    await user.click(await screen.findByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('Signed in 3')).toBeVisible();
    expect(screen.getByText('Signed in 1')).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
    const [first, second] = fakeApi.requestsTo('getMemberTimeline');
    expect(first!.query.get('cursor')).toBeNull();
    expect(second!.query.get('cursor')).toBe('cursor-2');
  });
});

describe('/ops/members/:id for an admin', () => {
  it('refunds a Stripe purchase in dollars, after a confirmation', async () => {
    const { user } = openMember('admin');
    fakeApi.on('refundPurchase', {
      body: { id: 're_1', amountCents: 499, currency: 'usd', status: 'succeeded' },
    });
    await user.click(await screen.findByRole('button', { name: 'Refund' }));
    const form = screen.getByRole('form', { name: 'Refund 1 Month' });
    await user.type(within(form).getByLabelText('Amount in dollars (optional)'), '4.99');
    await user.type(within(form).getByLabelText('Reason'), 'bought twice');
    await user.click(within(form).getByRole('button', { name: 'Refund' }));

    const confirm = within(form).getByRole('alertdialog');
    expect(confirm).toHaveTextContent('Refund $4.99 of 1 Month through Stripe?');
    expect(fakeApi.requestsTo('refundPurchase')).toHaveLength(0);
    await user.click(within(confirm).getByRole('button', { name: 'Yes, refund' }));
    expect(await findToast('Refund sent to Stripe')).toBeVisible();
    expect(fakeApi.requestsTo('refundPurchase')[0]).toMatchObject({
      path: '/ops/purchases/p-stripe/refund',
      body: { amountCents: 499, reason: 'bought twice' },
    });
  });

  it('shows and refunds a purchase in yen, and shows one in dinars with three decimals', async () => {
    signInAsOperator('admin');
    const base = story();
    const [stripe, , apple] = base.purchases;
    fakeApi.on('getMember', {
      body: {
        ...base,
        purchases: [
          { ...stripe!, amountCents: 1200, currency: 'jpy', refundedCents: 200 },
          { ...apple!, amountCents: 2750, currency: 'kwd' },
        ],
      },
    });
    fakeApi.on('getMemberTimeline', { body: { data: [timelineItem(1)], nextCursor: null } });
    fakeApi.on('refundPurchase', {
      body: { id: 're_1', amountCents: 500, currency: 'jpy', status: 'succeeded' },
    });
    const { user } = renderApp(`/ops/members/${MEMBER_ID}`);
    const purchases = await screen.findByRole('table', { name: 'Purchases' });
    expect(within(purchases).getByText('¥1,200')).toBeVisible();
    expect(within(purchases).getByText('¥200')).toBeVisible();
    expect(within(purchases).getByText(/^KWD\s2\.750$/)).toBeVisible();

    await user.click(within(purchases).getByRole('button', { name: 'Refund' }));
    const form = screen.getByRole('form', { name: 'Refund 1 Month' });
    expect(form).toHaveTextContent('Empty: all that is left, ¥1,000.');
    const amount = within(form).getByLabelText('Amount in JPY (optional)');
    await user.type(amount, '4.99');
    await user.type(within(form).getByLabelText('Reason'), 'goodwill');
    await user.click(within(form).getByRole('button', { name: 'Refund' }));
    // A yen has no decimals.
    expect(await within(form).findByText(/Type the amount in JPY \(5\)/)).toBeVisible();
    await user.clear(amount);
    await user.type(amount, '500');
    await user.click(within(form).getByRole('button', { name: 'Refund' }));
    const confirm = within(form).getByRole('alertdialog');
    expect(confirm).toHaveTextContent('Refund ¥500 of 1 Month through Stripe?');
    await user.click(within(confirm).getByRole('button', { name: 'Yes, refund' }));
    expect(await findToast('Refund sent to Stripe')).toBeVisible();
    expect(fakeApi.requestsTo('refundPurchase')[0]).toMatchObject({
      body: { amountCents: 500, reason: 'goodwill' },
    });
  });

  it('removes a grant of the support team with a reason', async () => {
    const { user } = openMember('admin');
    fakeApi.on('removeGrant', { body: { subscriptionEndDate: inDays(27) } });
    await user.click(await screen.findByRole('button', { name: 'Remove grant' }));
    const form = screen.getByRole('form', { name: /Remove grant/ });
    await user.type(within(form).getByLabelText('Reason'), 'granted by mistake');
    await user.click(within(form).getByRole('button', { name: 'Remove grant' }));
    await user.click(within(form).getByRole('button', { name: 'Yes, remove grant' }));
    expect(await findToast('Grant removed')).toBeVisible();
    expect(fakeApi.requestsTo('removeGrant')[0]).toMatchObject({
      path: '/ops/grants/0d1c2b3a-4f5e-4a6b-8c7d-9e0f1a2b3c4d',
      body: { reason: 'granted by mistake' },
    });
  });

  it('has no day limit in the grant form', async () => {
    const { user } = openMember('admin');
    await user.click(await screen.findByRole('button', { name: 'Grant days' }));
    expect(screen.queryByText(/Up to 31 days at a time/)).toBeNull();
  });
});
