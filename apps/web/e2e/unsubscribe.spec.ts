import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import type { Preferences, Profile, TokenPair } from '@kegel/contract';
import type { APIRequestContext } from '@playwright/test';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  screenshotBothWidths,
  test,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

/**
 * The unsubscribe link a reminder mail carries, made as the server makes it (its token signed
 * with the key it derives from the TOKEN_SECRET it generated into the journeys' DATA_DIR,
 * modules/premium-reminders/unsubscribe-token.ts): the mail itself goes 72 hours before a
 * premium end, which a journey cannot wait for until the server's clock can be moved.
 */
function unsubscribeToken(userId: string): string {
  // The server's data folder, which playwright.config.ts chose for the run: no setting of the app.
  // eslint-disable-next-line no-restricted-properties
  const dataDir = process.env.E2E_DATA_DIR ?? '';
  const { tokenSecret } = JSON.parse(
    readFileSync(path.join(dataDir, 'generated-secrets.json'), 'utf8'),
  ) as { tokenSecret: string };
  const key = createHmac('sha256', tokenSecret).update('kegel-coach:unsubscribe-link').digest();
  const signature = createHmac('sha256', key)
    .update(`${userId}.expiry-reminders`)
    .digest('base64url');
  return `${userId}.expiry-reminders.${signature}`;
}

async function memberWithReminders(request: APIRequestContext) {
  const email = uniqueEmail('unsubscribe');
  await createUser(request, email, PASSWORD);
  const login = await request.post('/api/auth/local/login/email', {
    data: { email, password: PASSWORD },
  });
  const { accessToken } = (await login.json()) as TokenPair;
  const authorization = { authorization: `Bearer ${accessToken}` };
  const profile = (await (
    await request.get('/api/users/profile', { headers: authorization })
  ).json()) as Profile;
  const remindersOn = async () =>
    (
      (await (
        await request.get('/api/users/preferences', { headers: authorization })
      ).json()) as Preferences
    ).expiryReminders;
  return { token: unsubscribeToken(profile.id), remindersOn };
}

/**
 * "Stop these reminders", from the mail sent before premium ends: opening the link (a person, or
 * a mail scanner fetching every link) asks first; the button turns reminders off, signed out.
 * The rules are tested in the API suite (apps/api/test/premium-reminders/).
 */
test.describe('unsubscribing from the reminders before premium ends', () => {
  test('the link asks first, one click turns reminders off; a tampered link does nothing', async ({
    page,
    request,
  }, testInfo) => {
    const member = await memberWithReminders(request);
    const query = `?token=${encodeURIComponent(member.token)}`;

    // The mail client's List-Unsubscribe link, fetched as a scanner would: no change, the page.
    const fetched = await request.get(`/api/users/unsubscribe${query}`, { maxRedirects: 0 });
    expect(fetched.status()).toBe(303);
    expect(new URL(fetched.headers().location ?? '').pathname).toBe('/account/unsubscribe');
    expect(await member.remindersOn()).toBe(true);

    await page.goto(`/account/unsubscribe${query}`);
    await expect(
      page.getByRole('heading', { level: 1, name: 'Stop the reminders before your premium ends?' }),
    ).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await screenshotBothWidths(page, testInfo, 'unsubscribe-ask');
    expect(await member.remindersOn()).toBe(true);

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'You are unsubscribed' }),
    ).toBeVisible();
    await screenshotBothWidths(page, testInfo, 'unsubscribe-done');
    expect(await member.remindersOn()).toBe(false);

    const other = await memberWithReminders(request);
    const tampered = other.token.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    await page.goto(`/account/unsubscribe?token=${encodeURIComponent(tampered)}`);
    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'This link does not work' }),
    ).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    expect(await other.remindersOn()).toBe(true);
  });
});
