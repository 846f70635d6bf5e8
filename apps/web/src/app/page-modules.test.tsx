import { screen, waitFor } from '@testing-library/react';
import { Outlet } from 'react-router';
import { describe, expect, it, vi } from 'vitest';

import { paths } from '../config/paths';
import { deskPaths } from '../features/support-desk/paths';
import { renderApp } from '../testing/render-app';
import { signInAsOperator } from '../testing/support-desk';
import { pageModulesByPath } from './page-modules';
import type * as DeskRoutes from './routes/support-desk-routes';

// Every lazily loaded module of the router, standing in as a line that names its file: the test
// reads which of them an address shows.
vi.mock('../features/marketing/pages/home-page', () => ({
  HomePage: () => <p>module src/features/marketing/pages/home-page.tsx</p>,
}));
vi.mock('../features/auth/pages/login-page', () => ({
  LoginPage: () => <p>module src/features/auth/pages/login-page.tsx</p>,
}));
vi.mock('../features/auth/pages/register-page', () => ({
  RegisterPage: () => <p>module src/features/auth/pages/register-page.tsx</p>,
}));
vi.mock('../features/auth/pages/reset-page', () => ({
  ResetPage: () => <p>module src/features/auth/pages/reset-page.tsx</p>,
}));
vi.mock('../features/auth/pages/recover-page', () => ({
  RecoverPage: () => <p>module src/features/auth/pages/recover-page.tsx</p>,
}));
vi.mock('../features/account/pages/verify-email-page', () => ({
  VerifyEmailPage: () => <p>module src/features/account/pages/verify-email-page.tsx</p>,
}));
vi.mock('../features/account/pages/cancel-email-change-page', () => ({
  CancelEmailChangePage: () => (
    <p>module src/features/account/pages/cancel-email-change-page.tsx</p>
  ),
}));
vi.mock('../features/account/pages/sign-in-not-me-page', () => ({
  SignInNotMePage: () => <p>module src/features/account/pages/sign-in-not-me-page.tsx</p>,
}));
vi.mock('../features/account/pages/account-deleted-page', () => ({
  AccountDeletedPage: () => <p>module src/features/account/pages/account-deleted-page.tsx</p>,
}));
vi.mock('../features/account/pages/unsubscribe-page', () => ({
  UnsubscribePage: () => <p>module src/features/account/pages/unsubscribe-page.tsx</p>,
}));
vi.mock('../features/purchase/pages/purchase-page', () => ({
  PurchasePage: () => <p>module src/features/purchase/pages/purchase-page.tsx</p>,
}));
vi.mock('../features/purchase/pages/purchase-complete-page', () => ({
  PurchaseCompletePage: () => <p>module src/features/purchase/pages/purchase-complete-page.tsx</p>,
}));
vi.mock('./layouts/member-layout', () => ({
  MemberLayout: () => (
    <>
      <p>module src/app/layouts/member-layout.tsx</p>
      <Outlet />
    </>
  ),
}));
vi.mock('../features/premium/pages/dashboard-page', () => ({
  DashboardPage: () => <p>module src/features/premium/pages/dashboard-page.tsx</p>,
}));
vi.mock('../features/premium/pages/history-page', () => ({
  HistoryPage: () => <p>module src/features/premium/pages/history-page.tsx</p>,
}));
vi.mock('../features/account/pages/settings-page', () => ({
  SettingsPage: () => <p>module src/features/account/pages/settings-page.tsx</p>,
}));
// The desk's route tree is a lazily loaded module of its own, which draws its lazy pages in its
// frame (DeskLayout, imported by it statically, so the real one: it is shown an open desk).
vi.mock('./routes/support-desk-routes', async (importOriginal) => {
  const { SupportDeskRoutes } = await importOriginal<typeof DeskRoutes>();
  return {
    SupportDeskRoutes: () => (
      <>
        <p>module src/app/routes/support-desk-routes.tsx</p>
        <SupportDeskRoutes />
      </>
    ),
  };
});
vi.mock('../features/support-desk/components/desk-layout', () => ({
  DeskLayout: () => <Outlet />,
}));
vi.mock('../features/support-desk/pages/find-member-page', () => ({
  FindMemberPage: () => <p>module src/features/support-desk/pages/find-member-page.tsx</p>,
}));
vi.mock('../features/support-desk/pages/audit-page', () => ({
  AuditPage: () => <p>module src/features/support-desk/pages/audit-page.tsx</p>,
}));

/**
 * Every address of config/paths.ts and of the desk's paths.ts that shows a page (`/` only redirects), but those with a
 * parameter: the server answers them with index.html (page-modules.ts).
 */
function pageAddresses(): string[] {
  const addresses: string[] = [];
  const visit = (node: object): void => {
    if ('path' in node && typeof node.path === 'string') addresses.push(node.path);
    else for (const child of Object.values(node)) visit(child as object);
  };
  visit(paths);
  visit(deskPaths);
  return addresses
    .filter((address) => address !== paths.root.path && !address.includes(':'))
    .sort();
}

function shownModules(): string[] {
  return screen
    .queryAllByText(/^module /)
    .map((line) => line.textContent.replace(/^module /, ''))
    .sort();
}

describe('the modules the build preloads for each address (page-modules.ts)', () => {
  it('name every address that shows a page', () => {
    expect(Object.keys(pageModulesByPath).sort()).toEqual(pageAddresses());
  });

  it.each(Object.entries(pageModulesByPath))(
    'are the ones the router shows at %s',
    async (address, modules) => {
      if (address.startsWith(deskPaths.root.path)) signInAsOperator('support');
      renderApp(address);
      await waitFor(() => expect(shownModules()).toEqual([...modules].sort()));
    },
  );
});
