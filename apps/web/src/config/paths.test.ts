// @vitest-environment node
// No page is rendered here: Node alone, without the DOM that the web project sets up.
import { describe, expect, it } from 'vitest';

import { isExemptFromLoginRedirect, pathAfterSignIn, paths, safeReturnPath } from './paths';

describe('the 401 rule', () => {
  it.each([
    '/auth/login',
    '/auth/reset',
    '/purchase',
    '/purchase/complete',
    '/account/recover/new',
    '/account/verify-email',
    '/account/cancel-email-change',
    '/account/deleted',
  ])('does not send %s to login', (pathname) =>
    expect(isExemptFromLoginRedirect(pathname)).toBe(true),
  );

  it.each([
    '/dashboard',
    '/dashboard/settings',
    '/home',
    '/authors',
    '/purchases',
    '/ops',
    '/ops/members/5b1c0a4e-0000-4000-8000-000000000000',
  ])('sends %s to login', (pathname) => expect(isExemptFromLoginRedirect(pathname)).toBe(false));

  it('carries the current path as r', () => {
    expect(paths.auth.login.getHref('/dashboard/settings?tab=1')).toBe(
      '/auth/login?r=%2Fdashboard%2Fsettings%3Ftab%3D1',
    );
  });
});

describe('r accepts same-origin paths only', () => {
  it.each([
    ['/dashboard/settings', '/dashboard/settings'],
    ['/dashboard?x=1#y', '/dashboard?x=1#y'],
  ])('follows %s', (candidate, expected) => expect(safeReturnPath(candidate)).toBe(expected));

  it.each([
    null,
    '',
    'dashboard',
    'https://evil.example',
    '//evil.example/x',
    '/\\evil.example',
    'javascript:alert(1)',
  ])('refuses %s', (candidate) => expect(safeReturnPath(candidate)).toBeUndefined());
});

describe('after signing in', () => {
  it('goes back to r when it is a path of this site', () => {
    expect(pathAfterSignIn('/dashboard/settings')).toBe('/dashboard/settings');
  });

  it.each([null, '', 'https://evil.example/steal'])('goes to /dashboard for r = %s', (r) =>
    expect(pathAfterSignIn(r)).toBe('/dashboard'),
  );
});
