import { twoStepMessages } from '@kegel/contract';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import {
  findToast,
  queryToast,
  renderApp,
  tokenExpiringInAnHour,
} from '../../../testing/render-app';

const MEMBER = {
  id: 'm1',
  email: 'member@example.com',
  subscriptionEndDate: null,
  hasPassword: true,
  twoStepEnabled: true,
};

async function passPasswordStep(user: ReturnType<typeof renderApp>['user']): Promise<void> {
  await user.type(await screen.findByRole('textbox', { name: 'Email' }), MEMBER.email);
  await user.type(screen.getByLabelText('Password'), 'correct horse battery');
  await user.click(screen.getByRole('button', { name: 'Sign In' }));
}

describe('the code step of /auth/login', () => {
  it('follows a password that asks for a code, and signs in with the code', async () => {
    fakeApi.on('login', { body: { mfaRequired: true, mfaToken: 'token-1' } });
    fakeApi.on('verifyTwoStep', {
      body: { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() },
    });
    fakeApi.on('readProfile', { body: MEMBER });
    const { user, pathname } = renderApp('/auth/login?r=%2Fdashboard%2Fsettings');
    await passPasswordStep(user);

    expect(
      await screen.findByRole('heading', { level: 1, name: 'Two-step sign-in' }),
    ).toBeVisible();
    expect(pathname()).toBe('/auth/login');
    expect(queryToast('Successfully authenticated')).toBeNull();
    await user.type(screen.getByRole('textbox', { name: 'Code' }), '123 456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));

    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(fakeApi.requestsTo('verifyTwoStep')[0]?.body).toEqual({
      mfaToken: 'token-1',
      code: '123456',
    });
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Account Settings' }),
    ).toBeVisible();
  });

  it('shows a wrong code under the field, and takes a recovery code after the switch', async () => {
    fakeApi.on('login', { body: { mfaRequired: true, mfaToken: 'token-2' } });
    fakeApi.on('verifyTwoStep', errorReply(401, twoStepMessages.wrongCode));
    const { user } = renderApp('/auth/login');
    await passPasswordStep(user);
    await user.type(await screen.findByRole('textbox', { name: 'Code' }), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('textbox', { name: 'Code' })).toHaveAccessibleDescription(
      twoStepMessages.wrongCode,
    );
    expect(queryToast(twoStepMessages.wrongCode)).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Use a recovery code' }));
    fakeApi.on('verifyTwoStep', {
      body: { accessToken: tokenExpiringInAnHour(), refreshToken: tokenExpiringInAnHour() },
    });
    fakeApi.on('readProfile', { body: MEMBER });
    await user.type(screen.getByRole('textbox', { name: 'Recovery code' }), 'ABCD-EFGH-JKMN-PQRS');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await findToast('Successfully authenticated')).toBeVisible();
    expect(fakeApi.requestsTo('verifyTwoStep')[1]?.body).toEqual({
      mfaToken: 'token-2',
      recoveryCode: 'abcdefghjkmnpqrs',
    });
  });

  it('goes back to the password when the sign-in has expired', async () => {
    fakeApi.on('login', { body: { mfaRequired: true, mfaToken: 'token-3' } });
    fakeApi.on('verifyTwoStep', errorReply(401, twoStepMessages.signInExpired));
    const { user } = renderApp('/auth/login');
    await passPasswordStep(user);
    await user.type(await screen.findByRole('textbox', { name: 'Code' }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await findToast(twoStepMessages.signInExpired)).toBeVisible();
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign In' })).toBeVisible();
  });
});
