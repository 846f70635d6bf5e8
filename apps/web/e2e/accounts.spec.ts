import {
  createUser,
  expect,
  expireAccessToken,
  linkIn,
  readEmail,
  signIn,
  test,
  toast,
  uniqueEmail,
} from './support/fixtures';

const PASSWORD = 'correct horse battery';

test.describe('account journeys', () => {
  test('register → login → dashboard', async ({ page }) => {
    const email = uniqueEmail('journey');
    // The sign-in page's code is asked for while the account is being made, not after.
    const order: string[] = [];
    page.on('request', (request) => {
      if (/\/assets\/login-page-[^/]*\.js$/.test(request.url())) order.push('sign-in page code');
    });
    page.on('response', (response) => {
      if (response.url().endsWith('/api/auth/local/register/email')) order.push('account made');
    });
    await page.goto('/auth/register');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();

    await expect(
      toast(page, 'Account has been created successfully! Log in to your account.'),
    ).toBeVisible();
    await expect(page).toHaveURL(/\/auth\/login$/);
    expect(order).toEqual(['sign-in page code', 'account made']);
    // The address changes at once, but the sign-in page's code may still be loading, and until it
    // has, the registration form stays on screen (React Router navigates in a transition): a person
    // waits for the sign-in form before typing, and so does this test.
    await expect(page.getByRole('heading', { name: 'Sign In' })).toBeVisible();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();

    await expect(toast(page, 'Successfully authenticated')).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByText("You don't have active subscriptions yet")).toBeVisible();
    await expect(page.getByRole('link', { name: 'Buy Premium' })).toHaveAttribute(
      'href',
      '/purchase',
    );
    await expect(page.getByRole('banner').getByRole('link', { name: email })).toHaveAttribute(
      'href',
      '/dashboard',
    );
  });

  test('forgot password → emailed link → new password → sign in with it', async ({
    page,
    request,
  }) => {
    const email = uniqueEmail('forgot').replace('@', '+reset@');
    await createUser(request, email, PASSWORD);
    await page.goto('/auth/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await expect(page).toHaveURL(/\/auth\/reset$/);
    // The login page stays drawn until the reset page's code has loaded: type into the new one.
    await expect(page.getByRole('heading', { name: 'Reset Password' })).toBeVisible();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send Link to Email' }).click();
    await expect(page.getByRole('heading', { name: 'Check Your Email Inbox!' })).toBeVisible();
    await expect(page.getByText(email)).toBeVisible();

    const message = await readEmail(request, email, 'Reset your Kegel Coach password');
    await page.goto(linkIn(message));
    await page.getByLabel('New password', { exact: true }).fill('a brand new password');
    await page.getByLabel('Repeat new password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change Password' }).click();
    await expect(page.getByRole('heading', { name: 'Password Changed!' })).toBeVisible();
    await page.getByRole('link', { name: 'Sign In Now' }).click();
    await expect(page).toHaveURL(/\/auth\/login$/);
    await signIn(page, email, 'a brand new password');
  });

  test('change password from Account Settings', async ({ page, request }) => {
    const email = uniqueEmail('change-pw');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    await page.getByRole('link', { name: 'Account Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Account Settings' })).toBeVisible();
    await page.getByRole('button', { name: 'Change Password' }).click();
    const form = page.getByRole('form', { name: 'Change password' });
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByLabel('New password', { exact: true }).fill('another strong one');
    await form.getByLabel('Repeat new password').fill('another strong one');
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Password changed successfully')).toBeVisible();
    await expect(page.getByText('Password successfully changed.')).toBeVisible();
    await expect(form).toBeHidden();

    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/auth\/login$/);
    await signIn(page, email, 'another strong one');
  });

  test('change email → emailed link (with a plus) → header shows the new address', async ({
    page,
    request,
  }) => {
    const email = uniqueEmail('change-email');
    const newEmail = uniqueEmail('renamed').replace('@', '+web@');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    await page.goto('/dashboard/settings');
    await page.getByRole('button', { name: 'Change Email' }).click();
    const form = page.getByRole('form', { name: 'Change email' });
    await form.getByLabel('New email').fill(newEmail);
    await form.getByLabel('Current password').fill(PASSWORD);
    await form.getByRole('button', { name: 'Save Changes' }).click();
    await expect(toast(page, 'Confirmation email sent successfully')).toBeVisible();
    await expect(page.getByText('Please check your inbox to confirm new email.')).toBeVisible();

    const message = await readEmail(request, newEmail, 'Confirm your new email address');
    // Some mail clients turn the encoded "+" into a space; the page restores it.
    const link = linkIn(message).replace('%2B', '+');
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Email changed successfully' })).toBeVisible();
    await expect(toast(page, 'Email successfully changed')).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: newEmail })).toBeVisible();
  });

  test('an expired access token is renewed silently', async ({ page, request }) => {
    const email = uniqueEmail('refresh');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    const before = await page.evaluate(() => localStorage.getItem('kegel-coach.refreshToken'));
    // An access token whose exp is long past: the client must refresh before using it.
    await expireAccessToken(page);
    await page.goto('/dashboard/settings');
    await expect(page.getByRole('heading', { name: 'Account Settings' })).toBeVisible();
    await expect(page.getByText(email).first()).toBeVisible();
    const after = await page.evaluate(() => localStorage.getItem('kegel-coach.refreshToken'));
    expect(after).not.toBe(before);
  });

  test('a revoked session sends the person to login with r', async ({ page, request }) => {
    const email = uniqueEmail('revoked');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    const refreshToken = await page.evaluate(() =>
      localStorage.getItem('kegel-coach.refreshToken'),
    );
    await request.post('/api/auth/logout', { data: { refreshToken } });
    await expireAccessToken(page);
    await page.goto('/dashboard/settings');
    await expect(page).toHaveURL(/\/auth\/login\?r=%2Fdashboard%2Fsettings$/);
    expect(await page.evaluate(() => localStorage.getItem('kegel-coach.refreshToken'))).toBeNull();
    // Signing in again returns to where the person was.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await expect(page).toHaveURL(/\/dashboard\/settings$/);
  });

  test('logout ends the session on the server and in the browser', async ({ page, request }) => {
    const email = uniqueEmail('logout');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    const refreshToken = await page.evaluate(() =>
      localStorage.getItem('kegel-coach.refreshToken'),
    );
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect(page).toHaveURL(/\/auth\/login$/);
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sign In' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('kegel-coach.accessToken'))).toBeNull();
    const refresh = await request.post('/api/auth/refresh', { data: { refreshToken } });
    expect(refresh.status()).toBe(401);
  });

  test('a visitor on a member page goes to login with r; a member on login goes to the dashboard', async ({
    page,
    request,
  }) => {
    await page.goto('/dashboard/settings');
    await expect(page).toHaveURL(/\/auth\/login\?r=%2Fdashboard%2Fsettings$/);

    const email = uniqueEmail('member');
    await createUser(request, email, PASSWORD);
    await signIn(page, email, PASSWORD);
    await page.goto('/auth/login');
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/auth/login?r=https://evil.example/steal');
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});
