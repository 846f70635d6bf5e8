import {
  activeUntil,
  payWithCard,
  startCheckout,
  SUCCEEDS,
  waitForNewEndDate,
} from './support/checkout';
import { createUser, expect, readEmail, signIn, test, uniqueEmail } from './support/fixtures';
import { type OwnServer, ownServer } from './support/own-server';

/**
 * The development clock (docs/testing.md, The development clock): a member's 1-week pass ends
 * when the server's clock passes it, as the dashboard shows. On a server of its own: the clock
 * never moves back, and the other journeys' server must keep real time.
 */
const PASSWORD = 'correct horse battery';
const DAY_SECONDS = 24 * 60 * 60;

test.use({ timezoneId: 'UTC' });

let server: OwnServer;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  // Beside the journeys' shared server; the support desk's journey has the next port.
  const sharedPort = Number(new URL(String(test.info().project.use.baseURL)).port);
  server = ownServer(sharedPort + 2);
  await server.start();
});

test.afterAll(async () => {
  await server.stop();
});

test('a 1-week pass is active 4 days later and over 8 days later, as the dashboard says', async ({
  browser,
  playwright,
}) => {
  test.setTimeout(180_000);
  const request = await playwright.request.newContext({ baseURL: server.url });
  const context = await browser.newContext({ baseURL: server.url, timezoneId: 'UTC' });
  const page = await context.newPage();
  const email = uniqueEmail('clock');
  await createUser(request, email, PASSWORD);
  await signIn(page, email, PASSWORD);

  const checkout = await startCheckout(page, '1 Week');
  await payWithCard(checkout, SUCCEEDS);
  await checkout.waitForURL(/\/purchase\/complete/);
  await checkout.close();
  const end = await waitForNewEndDate(page, request, null);
  await page.goto('/dashboard');
  await expect(page.getByText(activeUntil(end))).toBeVisible();

  const advance = async (days: number) => {
    const moved = await request.post('/dev/clock', {
      data: { advanceSeconds: days * DAY_SECONDS },
    });
    expect(moved.status(), await moved.text()).toBe(200);
  };

  // The reminders this member was mailed, by this server (its own /dev/inbox).
  const reminders = async () => {
    const messages = (await (await request.get('/dev/inbox/messages.json')).json()) as Array<{
      to: string[];
      subject: string;
    }>;
    return messages.filter(
      (message) =>
        message.to.includes(email) && message.subject.includes('Your Kegel Coach premium ends on'),
    );
  };
  expect(await reminders()).toHaveLength(0);

  await advance(4);
  // Less than 72 hours are left: the move ran the reminders' job, and one mail says when it ends.
  const reminder = await readEmail(request, email, 'Your Kegel Coach premium ends on');
  expect(reminder.text).toContain('Extend Premium');
  expect(reminder.text).toContain(`${new URL(server.url).origin}/purchase`);
  await page.reload();
  // The access token is days past its 15 minutes by the server's clock: the page renews it
  // (it follows the server's clock) instead of being signed out.
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText(activeUntil(end))).toBeVisible();

  await advance(4);
  await page.reload();
  await expect(page.getByText("You don't have active subscriptions yet")).toBeVisible();
  // The move ran the job again: still the one reminder for that end.
  expect(await reminders()).toHaveLength(1);
  await expect(page.getByRole('link', { name: 'Buy Premium' })).toBeVisible();

  // The development clock's own page: its buttons move the clock too.
  await page.goto('/dev/clock');
  await expect(page.getByRole('heading', { name: 'Development clock' })).toBeVisible();
  const shown = await page.locator('time').getAttribute('datetime');
  await page.getByRole('button', { name: '+1 hour' }).click();
  await expect(page).toHaveURL(/\/dev\/clock$/);
  const after = await page.locator('time').getAttribute('datetime');
  expect(Date.parse(after!) - Date.parse(shown!)).toBeGreaterThanOrEqual(60 * 60 * 1000);
  await context.close();
});
