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
const APPLE = 'Share my usage with Apple if I ask Apple for a refund';
const REMINDERS = 'Email me before my premium ends';

test('a member turns on sharing his usage with Apple from the keyboard, and it is still on after a reload', async ({
  page,
  request,
}) => {
  const email = uniqueEmail('preferences');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);
  await page.goto('/dashboard/settings');
  await expect(page.getByRole('heading', { name: 'Preferences' })).toBeVisible();
  const apple = page.getByRole('checkbox', { name: APPLE });
  await expect(apple).not.toBeChecked();
  await expect(page.getByRole('checkbox', { name: REMINDERS })).toBeChecked();
  await expectNoSeriousA11yViolations(page);

  await apple.focus();
  await page.keyboard.press('Space');
  await expect(toast(page, 'Preferences saved')).toBeVisible();
  await expect(apple).toBeChecked();
  await page.getByText(REMINDERS).click();
  await expect(page.getByRole('checkbox', { name: REMINDERS })).not.toBeChecked();

  await page.reload();
  await expect(page.getByRole('checkbox', { name: APPLE })).toBeChecked();
  await expect(page.getByRole('checkbox', { name: REMINDERS })).not.toBeChecked();
});
