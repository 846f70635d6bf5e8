import { supportDeskMessages } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';

import { switchLocale } from '../../../shared/i18n/i18n';
import { fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';
import { signInAsOperator } from '../../../testing/support-desk';

const MEMBER_ID = '8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69';

describe('/ops, find a member', () => {
  it('searches by what the operator typed and links each match to his story', async () => {
    signInAsOperator('support');
    fakeApi.on('searchMembers', {
      body: {
        data: [
          {
            id: MEMBER_ID,
            email: 'member@example.com',
            createdAt: '2026-01-02T10:00:00.000Z',
            subscriptionEndDate: '2026-12-24T10:00:00.000Z',
            matchedBy: 'order id',
          },
        ],
      },
    });
    const { user, search } = renderApp('/ops');

    await user.click(await screen.findByRole('button', { name: 'Search' }));
    expect(await screen.findByText(supportDeskMessages.queryRequired)).toBeVisible();
    expect(fakeApi.requestsTo('searchMembers')).toHaveLength(0);

    await user.type(
      screen.getByLabelText(
        'Email, account id, Stripe id, original transaction id or Apple order id',
      ),
      '  MQ2K7X9L3P ',
    );
    await user.click(screen.getByRole('button', { name: 'Search' }));

    const results = await screen.findByRole('table', { name: 'Results for “MQ2K7X9L3P”' });
    const [, row] = within(results).getAllByRole('row');
    expect(within(row!).getByRole('link', { name: 'member@example.com' })).toHaveAttribute(
      'href',
      `/ops/members/${MEMBER_ID}`,
    );
    expect(row).toHaveTextContent('order id');
    expect(row).toHaveTextContent('12/24/26');
    expect(fakeApi.requestsTo('searchMembers')[0]!.path).toBe('/ops/members');
    // The term stays in the address: back from a member's page, the same results.
    expect(search()).toBe('?q=MQ2K7X9L3P');
  });

  it('says so when no member matches', async () => {
    signInAsOperator('support');
    fakeApi.on('searchMembers', { body: { data: [] } });
    renderApp('/ops?q=nobody%40example.com');
    expect(await screen.findByText('No member matches “nobody@example.com”.')).toBeVisible();
  });

  describe('in German', () => {
    afterEach(() => switchLocale('en'));

    it("speaks the operator's language: the desk's frame, the form, the results", async () => {
      await switchLocale('de');
      signInAsOperator('admin');
      fakeApi.on('searchMembers', {
        body: {
          data: [
            {
              id: MEMBER_ID,
              email: 'member@example.com',
              createdAt: '2026-01-02T10:00:00.000Z',
              subscriptionEndDate: null,
              matchedBy: 'order id',
            },
          ],
        },
      });
      renderApp('/ops?q=MQ2K7X9L3P');

      expect(
        await screen.findByRole('heading', { name: 'Mitglied suchen', level: 1 }),
      ).toBeVisible();
      expect(screen.getByRole('link', { name: 'Audit-Protokoll' })).toBeVisible();
      expect(screen.getByText('Admin')).toBeVisible();
      expect(
        screen.getByLabelText(
          'E-Mail, Konto-ID, Stripe-ID, ursprüngliche Transaktions-ID oder Apple-Bestellnummer',
        ),
      ).toHaveValue('MQ2K7X9L3P');
      expect(screen.getByRole('button', { name: 'Suchen' })).toBeVisible();

      const results = await screen.findByRole('table', { name: 'Ergebnisse für „MQ2K7X9L3P“' });
      expect(within(results).getByRole('columnheader', { name: 'Gefunden über' })).toBeVisible();
      const [, row] = within(results).getAllByRole('row');
      // What matched, in words; the member's email as stored.
      expect(row).toHaveTextContent('Bestellnummer');
      expect(within(row!).getByRole('link', { name: 'member@example.com' })).toBeVisible();
    });
  });
});
