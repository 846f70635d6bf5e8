import type { MessageKey } from '@kegel/contract/i18n/catalogs';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import * as catalog from 'virtual:catalog/member';

import { paths } from '../../config/paths';
import { defineTexts } from '../../shared/i18n/define-texts';
import { useHasTokens, useProfile, useSignOut } from '../../shared/session/session';
import {
  DashboardIcon,
  HistoryIcon,
  LogoutIcon,
  SettingsIcon,
} from '../../shared/ui/icons/icon-set';
import styles from './member-layout.module.css';

/** The menu's texts (the `member` namespace). */
const useMemberText = defineTexts<'member'>(catalog);

const MENU: ReadonlyArray<{
  to: string;
  label: MessageKey<'member'>;
  Icon: typeof DashboardIcon;
  end: boolean;
}> = [
  { to: paths.dashboard.root.getHref(), label: 'dashboard', Icon: DashboardIcon, end: true },
  {
    to: paths.dashboard.settings.getHref(),
    label: 'accountSettings',
    Icon: SettingsIcon,
    end: false,
  },
  {
    to: paths.dashboard.history.getHref(),
    label: 'purchaseHistory',
    Icon: HistoryIcon,
    end: false,
  },
];

/** The member area: the 'Member Settings' menu; visitors are sent to login with `r`. */
export function MemberLayout(): React.JSX.Element | null {
  const text = useMemberText();
  const hasTokens = useHasTokens();
  const location = useLocation();
  const navigate = useNavigate();
  const profile = useProfile();
  const signOut = useSignOut();

  if (!hasTokens) {
    return (
      <Navigate to={paths.auth.login.getHref(`${location.pathname}${location.search}`)} replace />
    );
  }
  // The spinner overlay of the site layout covers the loading; a failed load is a 401 (handled
  // by the API client) or a network problem, shown by the error toast.
  if (!profile.data) return null;

  return (
    <div className={styles.layout}>
      <nav className={styles.menu} aria-labelledby="member-menu-title">
        <p className={styles.menuTitle} id="member-menu-title">
          {text('menuTitle')}
        </p>
        <ul className={styles.menuList}>
          {MENU.map(({ to, label, Icon, end }) => (
            <li key={to}>
              {/* Dashboard matches exactly, so it is not lit on every page of the area. */}
              <NavLink
                to={to}
                end={end}
                className={({ isActive }) =>
                  isActive ? `${styles.menuItem} ${styles.menuItemActive}` : styles.menuItem
                }
              >
                <Icon />
                {text(label)}
              </NavLink>
            </li>
          ))}
          <li>
            <button
              type="button"
              className={styles.menuItem}
              onClick={async () => {
                // Awaited, not a callback: forgetting the tokens unmounts this layout.
                await signOut.mutateAsync();
                await navigate(paths.auth.login.getHref(), { replace: true });
              }}
            >
              <LogoutIcon />
              {text('logout')}
            </button>
          </li>
        </ul>
      </nav>
      <div className={styles.content}>
        <Outlet />
      </div>
    </div>
  );
}
