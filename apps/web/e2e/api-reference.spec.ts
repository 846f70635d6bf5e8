// The reference page at /api/docs as a mobile developer uses it: the calls come with the
// contract's examples filled in, "Try it out" is on, and a token from a sign-in made on the page
// itself, given to Authorize, signs the next calls in.
import type { Page } from '@playwright/test';

import { createUser, expect, test, uniqueEmail } from './support/fixtures';

const PASSWORD = 'correct horse battery';

/** Runs an operation's "Try it out" request and answers the server's JSON body. */
async function execute(page: Page, operation: string): Promise<unknown> {
  const block = page.locator(`#operations-${operation}`);
  await block.getByRole('button', { name: 'Execute' }).click();
  const body = block.locator('.live-responses-table .response-col_description pre').first();
  await expect(body).toBeVisible();
  return JSON.parse((await body.textContent()) ?? 'null') as unknown;
}

test('a developer signs in on the reference page, authorizes with the token and reads his profile', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const email = uniqueEmail('api-reference');
  await createUser(request, email, PASSWORD);

  await page.goto('/api/docs/#/Account/login');
  const login = page.locator('#operations-Account-login');
  // The first load reads Swagger UI's bundle (1.4 MB) and has the server draw the document.
  await expect(login).toBeVisible({ timeout: 30_000 });
  // The contract's example is there to start from.
  const body = login.locator('textarea.body-param__text');
  await expect(body).toHaveValue(/"email": "alex@example.com"/);
  await body.fill(JSON.stringify({ email, password: PASSWORD }));
  const tokens = (await execute(page, 'Account-login')) as { accessToken: string };
  expect(tokens.accessToken).toMatch(/^ey/);

  await page.getByRole('button', { name: 'Authorize' }).first().click();
  // Swagger UI's dialog is a div without a dialog role.
  const dialog = page.locator('.modal-ux');
  await dialog.locator('input').fill(tokens.accessToken);
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await dialog.getByRole('button', { name: 'Close' }).click();

  await page.goto('/api/docs/#/Profile/readProfile');
  await page.reload();
  // Outside production the token outlives the reload (persistAuthorization), as a developer's
  // would; in production it stays in the page's memory only (plugins/api-docs.ts).
  const profile = (await execute(page, 'Profile-readProfile')) as { email: string };
  expect(profile.email).toBe(email);
});
