import { passkeyMessages, twoStepMessages } from '@kegel/contract';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { errorReply, fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

function passkey(id: string, name: string, lastUsedAt: string | null = null) {
  return { id, name, createdAt: '2026-11-20T10:00:00.000Z', lastUsedAt, isSynced: id === 'phone' };
}

describe('/dashboard/settings, Passkeys', () => {
  it('lists each passkey with its name, when it was added and last used', async () => {
    signInAs();
    fakeApi.on('listPasskeys', {
      body: {
        data: [passkey('phone', 'iPhone', '2026-11-24T09:30:00.000Z'), passkey('key', 'YubiKey')],
      },
    });
    renderApp('/dashboard/settings');
    const list = await screen.findByRole('list', { name: 'Passkeys' });
    const [phone, key] = within(list).getAllByRole('listitem');
    expect(phone).toHaveTextContent('iPhoneSynced');
    expect(phone).toHaveTextContent(/Added November 20, 2026 at .* · Last used November 24, 2026/);
    expect(key).toHaveTextContent('YubiKey');
    expect(key).toHaveTextContent('Never used');
  });

  it('says so when there are none', async () => {
    signInAs();
    fakeApi.on('listPasskeys', { body: { data: [] } });
    renderApp('/dashboard/settings');
    expect(await screen.findByText('You have no passkeys yet.')).toBeVisible();
  });

  it('renames a passkey', async () => {
    signInAs();
    let name = 'YubiKey';
    fakeApi.on('listPasskeys', () => ({ body: { data: [passkey('key', name)] } }));
    fakeApi.on('renamePasskey', (request) => {
      name = (request.body as { name: string }).name;
      return { body: passkey('key', name) };
    });
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Rename YubiKey' }));
    const field = screen.getByLabelText('Passkey name');
    await user.clear(field);
    await user.type(field, 'Desk key');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await findToast('Passkey renamed')).toBeVisible();
    expect(fakeApi.requestsTo('renamePasskey')[0]).toMatchObject({
      path: '/users/passkeys/key',
      body: { name: 'Desk key' },
    });
    expect(await screen.findByText('Desk key')).toBeVisible();
  });

  it('removes a passkey after asking, and shows why the last way in cannot go', async () => {
    signInAs();
    let passkeys = [passkey('phone', 'iPhone'), passkey('key', 'YubiKey')];
    fakeApi.on('listPasskeys', () => ({ body: { data: passkeys } }));
    fakeApi.on('removePasskey', (request) => {
      if (passkeys.length === 1) return errorReply(409, passkeyMessages.lastWayToSignIn);
      passkeys = passkeys.filter((item) => !request.path.endsWith(`/${item.id}`));
      return { body: { message: 'Passkey removed' } };
    });
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Remove YubiKey' }));
    expect(fakeApi.requestsTo('removePasskey')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Remove YubiKey now' }));
    expect(await findToast('Passkey removed')).toBeVisible();
    const list = screen.getByRole('list', { name: 'Passkeys' });
    await waitFor(() => expect(within(list).getAllByRole('listitem')).toHaveLength(1));

    await user.click(screen.getByRole('button', { name: 'Remove iPhone' }));
    await user.click(screen.getByRole('button', { name: 'Remove iPhone now' }));
    const [alert] = await within(list).findAllByRole('alert');
    expect(alert).toHaveTextContent(passkeyMessages.lastWayToSignIn);
    expect(within(list).getByText('iPhone')).toBeVisible();
  });

  describe('with two-step sign-in on', () => {
    afterEach(() => {
      vi.unstubAllGlobals();
    });

    it('asks for a current code before adding a passkey, and sends it with the request', async () => {
      // A browser with WebAuthn (jsdom has none).
      vi.stubGlobal('PublicKeyCredential', function PublicKeyCredential() {});
      signInAs({ twoStepEnabled: true });
      fakeApi.on('listPasskeys', { body: { data: [] } });
      fakeApi.on('passkeyRegistrationOptions', errorReply(400, twoStepMessages.wrongSecondFactor));
      const { user } = renderApp('/dashboard/settings');
      await user.click(await screen.findByRole('button', { name: 'Add a passkey' }));
      expect(fakeApi.requestsTo('passkeyRegistrationOptions')).toHaveLength(0);
      const form = within(screen.getByRole('form', { name: 'Add a passkey' }));
      await user.type(form.getByLabelText('Code from your authenticator app'), '123456');
      await user.click(form.getByRole('button', { name: 'Continue' }));
      await waitFor(() =>
        expect(fakeApi.requestsTo('passkeyRegistrationOptions')[0]).toMatchObject({
          body: { code: '123456' },
        }),
      );
      expect(
        await form.findByText(twoStepMessages.wrongSecondFactor, { exact: false }),
      ).toBeVisible();
    });
  });
});
