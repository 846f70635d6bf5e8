import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { fakeApi } from '../../../testing/fake-api';
import { findToast, renderApp, signInAs } from '../../../testing/render-app';

/** jsdom's Blob reads through a FileReader. */
function readText(blob: Blob): Promise<string> {
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.readAsText(blob);
  });
}

const originalUrl = {
  create: URL.createObjectURL.bind(URL),
  revoke: URL.revokeObjectURL.bind(URL),
};

describe('/dashboard/settings, Download your data', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    URL.createObjectURL = originalUrl.create;
    URL.revokeObjectURL = originalUrl.revoke;
  });

  it('saves the export as kegel-coach-data-<day>.json', async () => {
    signInAs();
    fakeApi.on('listSessions', { body: { data: [] } });
    fakeApi.on('exportData', {
      body: {
        exportedAt: '2026-11-23T10:00:00.000Z',
        profile: {
          id: 'member-1',
          email: 'member@example.com',
          createdAt: '2026-11-01T10:00:00.000Z',
          emailVerifiedAt: null,
          hasPassword: true,
          subscriptionEndDate: null,
        },
        identities: [],
        sessions: [],
        purchases: [],
        appStoreSubscriptions: [],
        emails: [],
      },
    });
    const saved: Array<{ name: string; blob: Blob }> = [];
    const blobs = new Map<string, Blob>();
    URL.createObjectURL = (blob: Blob) => {
      const url = `blob:test/${blobs.size}`;
      blobs.set(url, blob);
      return url;
    };
    URL.revokeObjectURL = () => {};
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      saved.push({ name: this.download, blob: blobs.get(this.href)! });
    });
    const { user } = renderApp('/dashboard/settings');
    await user.click(await screen.findByRole('button', { name: 'Download your data' }));
    expect(await findToast('Your data is downloaded')).toBeVisible();
    expect(saved.map((file) => file.name)).toEqual(['kegel-coach-data-2026-11-23.json']);
    expect(JSON.parse(await readText(saved[0]!.blob))).toMatchObject({
      profile: { email: 'member@example.com' },
    });
  });
});
