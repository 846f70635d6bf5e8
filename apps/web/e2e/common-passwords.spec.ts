import { expect, test, toast, uniqueEmail } from './support/fixtures';

const TOO_COMMON = 'This password is too common. Please choose a less guessable one.';

test('a common password is refused under its field, and a better one makes the account', async ({
  page,
}) => {
  await page.goto('/auth/register');
  const password = page.getByLabel('Password', { exact: true });
  const confirmation = page.getByLabel('Confirm password');
  await page.getByLabel('Email').fill(uniqueEmail('common'));
  await password.fill('Password1');
  await confirmation.fill('Password1');
  await page.getByRole('button', { name: 'Create Account' }).click();

  await expect(password).toHaveAccessibleDescription(TOO_COMMON);
  await expect(password).toBeFocused();
  await expect(toast(page, TOO_COMMON)).toHaveCount(0);
  await expect(page).toHaveURL(/\/auth\/register$/);

  await password.fill('a password of my own');
  await confirmation.fill('a password of my own');
  await page.getByRole('button', { name: 'Create Account' }).click();
  await expect(
    toast(page, 'Account has been created successfully! Log in to your account.'),
  ).toBeVisible();
  await expect(page).toHaveURL(/\/auth\/login$/);
});
