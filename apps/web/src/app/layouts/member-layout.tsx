import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';

import { paths } from '../../config/paths';
import { useHasTokens, useProfile, useSignOut } from '../../shared/session/session';
import {
  DashboardIcon,
  HistoryIcon,
  LogoutIcon,
  SettingsIcon,
} from '../../shared/ui/icons/icon-set';
import styles from './member-layout.module.css';

const MENU = [
  { to: paths.dashboard.root.getHref(), label: 'Dashboard', Icon: DashboardIcon, end: true },
  {
    to: paths.dashboard.settings.getHref(),
    label: 'Account Settings',
    Icon: SettingsIcon,
    end: false,
  },
  {
    to: paths.dashboard.history.getHref(),
    label: 'Purchase History',
    Icon: HistoryIcon,
    end: false,
  },
];

/** The member area: the 'Member Settings' menu; visitors are sent to login with `r`. */
export function MemberLayout(): React.JSX.Element | null {
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
          Member Settings
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
                {label}
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
              Logout
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
