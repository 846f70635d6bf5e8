import { twoStepMessages } from '@kegel/contract';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const CODES = Array.from({ length: 10 }, (_, index) => `abcd-efgh-jkmn-pq${index}x`);

async function twoStepSection() {
  return within(await screen.findByRole('region', { name: 'Two-step sign-in' }));
}

describe('/dashboard/settings, Two-step sign-in', () => {
  it('turns on: the QR code and key, a code, then the recovery codes shown once', async () => {
    signInAs({ twoStepEnabled: false });
    fakeApi.on('setUpTwoStep', {
      body: {
        secret: SECRET,
        otpauthUrl: `otpauth://totp/Kegel%20Coach:member%40example.com?secret=${SECRET}&issuer=Kegel%20Coach`,
      },
    });
    const { user } = renderApp('/dashboard/settings');
    const section = await twoStepSection();
    expect(section.getByText(/^Off\./)).toBeVisible();
    await user.click(section.getByRole('button', { name: 'Turn on' }));

    expect(
      await section.findByRole('img', { name: 'QR code for your authenticator app' }),
    ).toBeVisible();
    expect(section.getByLabelText('Setup key')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');

    fakeApi.on('confirmTwoStep', errorReply(400, twoStepMessages.wrongCode));
    await user.type(section.getByRole('textbox', { name: 'Code' }), '000000');
    await user.click(section.getByRole('button', { name: 'Turn on' }));
    expect(await section.findByRole('textbox', { name: 'Code' })).toHaveAccessibleDescription(
      twoStepMessages.wrongCode,
    );

    fakeApi.on('confirmTwoStep', { body: { recoveryCodes: CODES } });
    await user.clear(section.getByRole('textbox', { name: 'Code' }));
    await user.type(section.getByRole('textbox', { name: 'Code' }), '123456');
    await user.click(section.getByRole('button', { name: 'Turn on' }));
    expect(await findToast('Two-step sign-in is on')).toBeVisible();
    const list = await section.findByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(CODES);
    expect(section.getByRole('button', { name: 'Download (.txt)' })).toBeVisible();
    await user.click(section.getByRole('button', { name: 'I have saved them' }));
    expect(section.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
  });

  it('turns off with a recovery code typed in the one field', async () => {
    signInAs({ twoStepEnabled: true });
    fakeApi.on('turnOffTwoStep', { body: { message: twoStepMessages.turnedOff } });
    const { user } = renderApp('/dashboard/settings');
    const section = await twoStepSection();
    expect(section.getByText(/^On\./)).toBeVisible();
    await user.click(section.getByRole('button', { name: 'Turn off' }));
    await user.type(
      section.getByRole('textbox', { name: 'Code from your app, or a recovery code' }),
      'abcd-efgh-jkmn-pqrs',
    );
    await user.click(section.getByRole('button', { name: 'Turn off' }));
    expect(await findToast('Two-step sign-in is off')).toBeVisible();
    expect(fakeApi.requestsTo('turnOffTwoStep')[0]?.body).toEqual({
      recoveryCode: 'abcd-efgh-jkmn-pqrs',
    });
  });

  it('asks the password change for a code while it is on, and shows a wrong one under it', async () => {
    signInAs({ twoStepEnabled: true });
    fakeApi.on('changePassword', errorReply(400, twoStepMessages.wrongSecondFactor));
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Change Password' }));
    const form = within(screen.getByRole('form', { name: 'Change password' }));
    await user.type(form.getByLabelText('Current password'), 'correct horse battery');
    await user.type(form.getByLabelText('New password'), 'another strong one');
    await user.type(form.getByLabelText('Repeat new password'), 'another strong one');
    await user.type(form.getByLabelText('Code from your authenticator app'), '654321');
    await user.click(form.getByRole('button', { name: 'Save Changes' }));

    expect(
      await form.findByLabelText('Code from your authenticator app'),
    ).toHaveAccessibleDescription(
      `Or one of your recovery codes. ${twoStepMessages.wrongSecondFactor}`,
    );
    expect(fakeApi.requestsTo('changePassword')[0]?.body).toEqual({
      oldPassword: 'correct horse battery',
      newPassword: 'another strong one',
      code: '654321',
    });
  });
});
