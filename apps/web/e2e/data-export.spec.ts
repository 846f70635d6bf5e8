import { readFile } from 'node:fs/promises';

import type { DataExport } from '@kegel/contract';

import {
  createUser,
  expect,
  expectNoSeriousA11yViolations,
  signIn,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

test('a member downloads his data: one JSON file with his profile and sessions, no secrets', async ({
  page,
  request,
}) => {
  const email = uniqueEmail('export');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);
  await page.goto('/dashboard/settings');
  await expect(page.getByRole('heading', { name: 'Your data' })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download your data' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(
    `kegel-coach-data-${new Date().toISOString().slice(0, 10)}.json`,
  );
  await expect(toast(page, 'Your data is downloaded')).toBeVisible();
  const text = await readFile(await download.path(), 'utf8');
  const data = JSON.parse(text) as DataExport;
  expect(data.profile.email).toBe(email);
  expect(data.sessions.length).toBeGreaterThanOrEqual(1);
  expect(text).not.toMatch(/argon2|refreshToken|accessToken/);
});
