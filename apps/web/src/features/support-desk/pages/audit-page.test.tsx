import type { AuditRow } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { renderApp } from '../../../testing/render-app';
import { signInAsOperator } from '../../../testing/support-desk';

const GRANT: AuditRow = {
  id: 'a-1',
  sequence: 7,
  at: '2026-11-26T08:00:00.000Z',
  actor: { id: 'op-1', email: 'agent@example.com', role: 'support' },
  action: 'grant.add',
  member: { id: '8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69', email: 'member@example.com' },
  reason: 'service outage',
  changes: {
    before: { premiumEnd: '2026-12-01' },
    after: { premiumEnd: '2026-12-08' },
  },
  requestId: 'req-1',
  clientAddress: '127.0.0.1',
};

describe('/ops/audit', () => {
  it('lists the rows, with what changed, and filters them through the address', async () => {
    signInAsOperator('admin');
    fakeApi.on('listAudit', { body: { data: [GRANT], nextCursor: null } });
    const { user, search } = renderApp('/ops/audit');

    const table = await screen.findByRole('table', { name: 'Rows' });
    await within(table).findByText('service outage');
    const [, row] = within(table).getAllByRole('row');
    expect(row).toHaveTextContent('agent@example.com');
    expect(row).toHaveTextContent('grant.add');
    expect(row).toHaveTextContent('service outage');
    expect(row).toHaveTextContent('premiumEnd: 2026-12-01 → 2026-12-08');
    expect(within(row!).getByRole('link', { name: 'member@example.com' })).toHaveAttribute(
      'href',
      '/ops/members/8a3c6a57-6c8b-4d0e-9b7e-3f1d2c4b5a69',
    );

    await user.type(screen.getByLabelText('Member'), 'member@example.com');
    await user.selectOptions(screen.getByLabelText('Action'), 'grant.add');
    await user.click(screen.getByRole('button', { name: 'Filter' }));

    await expect.poll(() => search()).toBe('?member=member%40example.com&action=grant.add');
    await expect.poll(() => fakeApi.requestsTo('listAudit').length).toBe(2);
    const filtered = fakeApi.requestsTo('listAudit')[1]!.query;
    expect(Object.fromEntries(filtered)).toEqual({
      member: 'member@example.com',
      action: 'grant.add',
    });
    expect(Object.fromEntries(fakeApi.requestsTo('listAudit')[0]!.query)).toEqual({});
  });
});
