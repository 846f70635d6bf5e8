import { type OperatorRole, supportDeskMessages } from '@kegel/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation } from 'react-router';

import { paths } from '../../../config/paths';
import { deskPaths } from '../paths';
import { formatLongDate } from '../../../shared/format/dates';
import { localizeMessage } from '../../../shared/i18n/i18n';
import { useHasTokens, useProfile } from '../../../shared/session/session';
import { ButtonLink } from '../../../shared/ui/button';
import { ShieldIcon } from '../../../shared/ui/icons/icon-set';
import { SpinnerOverlay } from '../../../shared/ui/spinner-overlay';
import { asksForSecondFactor, closeDesk, deskQueries } from '../api';
import { roleName } from '../labels';
import { useDeskText } from '../text';
import styles from './desk-layout.module.css';
import { StepUpForm } from './step-up-form';

const NAV = [
  { to: deskPaths.root.getHref(), label: 'findMember', end: false },
  { to: deskPaths.audit.getHref(), label: 'auditTrail', end: true },
] as const;

/**
 * The support desk's frame (`/ops` and below). It asks the server first who the person is on the
 * desk: a member who is not an operator, or an operator without a second factor, is told why and
 * where to go; an operator whose second factor is older than 12 hours confirms it here; then the
 * desk. Visitors are sent to login with `r`, as from the member area.
 */
export function DeskLayout(): React.JSX.Element | null {
  const text = useDeskText();
  const hasTokens = useHasTokens();
  const location = useLocation();
  const status = useQuery({ ...deskQueries.operator(), enabled: hasTokens });
  const profile = useProfile();
  useClosesOnExpiredSecondFactor();

  if (!hasTokens) {
    return (
      <Navigate to={paths.auth.login.getHref(`${location.pathname}${location.search}`)} replace />
    );
  }
  if (status.isPending) return <SpinnerOverlay label={text('opening')} />;
  if (status.isError) {
    return (
      <DeskFrame>
        <DeskNotice title={text('couldNotOpen')} text={localizeMessage(status.error.message)}>
          <button type="button" className={styles.linkButton} onClick={() => status.refetch()}>
            {text('tryAgain')}
          </button>
        </DeskNotice>
      </DeskFrame>
    );
  }
  const operator = status.data;
  const email = profile.data?.email;
  if (!operator.role) {
    return (
      <DeskFrame>
        <DeskNotice
          title={text('supportDesk')}
          text={localizeMessage(supportDeskMessages.notAnOperator)}
        >
          <ButtonLink to={paths.dashboard.root.getHref()}>{text('goToDashboard')}</ButtonLink>
        </DeskNotice>
      </DeskFrame>
    );
  }
  if (!operator.hasSecondFactor) {
    return (
      <DeskFrame email={email} role={operator.role}>
        <DeskNotice
          title={text('supportDesk')}
          text={localizeMessage(supportDeskMessages.noSecondFactor)}
        >
          <ButtonLink to={paths.dashboard.settings.getHref()}>
            {text('openAccountSettings')}
          </ButtonLink>
        </DeskNotice>
      </DeskFrame>
    );
  }
  if (operator.deskClosedUntil) {
    return (
      <DeskFrame email={email} role={operator.role}>
        <DeskNotice
          title={text('supportDesk')}
          text={text('secondFactorTooNewUntil', {
            reason: localizeMessage(supportDeskMessages.secondFactorTooNew),
            date: formatLongDate(operator.deskClosedUntil),
          })}
        >
          <ButtonLink to={paths.dashboard.root.getHref()}>{text('goToDashboard')}</ButtonLink>
        </DeskNotice>
      </DeskFrame>
    );
  }
  if (!operator.deskOpenUntil) {
    return (
      <DeskFrame email={email} role={operator.role}>
        <StepUpForm operator={operator} />
      </DeskFrame>
    );
  }
  return (
    <DeskFrame email={email} role={operator.role} showsNav>
      <Outlet />
    </DeskFrame>
  );
}

/**
 * An /ops call refused because the 12 hours since the last second factor ran out while the desk
 * was open: the desk closes and asks for the factor again (its message shows in the call's toast).
 */
function useClosesOnExpiredSecondFactor(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const onError = (error: unknown): void => {
      if (asksForSecondFactor(error)) closeDesk(queryClient);
    };
    const stopQueries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
    });
    const stopMutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated' && event.action.type === 'error') onError(event.action.error);
    });
    return () => {
      stopQueries();
      stopMutations();
    };
  }, [queryClient]);
}

function DeskFrame({
  email,
  role,
  showsNav = false,
  children,
}: {
  email?: string;
  role?: OperatorRole | null;
  showsNav?: boolean;
  children: ReactNode;
}): React.JSX.Element {
  const text = useDeskText();
  return (
    <div className={styles.page}>
      <a className={styles.skipLink} href="#desk-main">
        {text('skipToContent')}
      </a>
      <header className={styles.header}>
        <div className={styles.headerInner}>
          <Link to={deskPaths.root.getHref()} className={styles.brand}>
            <ShieldIcon width={22} height={22} />
            {text('supportDesk')}
          </Link>
          {showsNav ? (
            <nav className={styles.nav} aria-label={text('supportDesk')}>
              <ul>
                {NAV.map(({ to, label, end }) => (
                  <li key={to}>
                    <NavLink
                      to={to}
                      end={end}
                      className={({ isActive }) =>
                        isActive ? `${styles.navItem} ${styles.navItemActive}` : styles.navItem
                      }
                    >
                      {text(label)}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </nav>
          ) : null}
          {email ? (
            <p className={styles.operator}>
              <span className={styles.operatorEmail}>{email}</span>
              {role ? <span className={styles.role}>{roleName(text, role)}</span> : null}
            </p>
          ) : null}
        </div>
      </header>
      <main className={styles.main} id="desk-main">
        {children}
      </main>
    </div>
  );
}

function DeskNotice({
  title,
  text,
  children,
}: {
  title: string;
  text: string;
  children: ReactNode;
}): React.JSX.Element {
  return (
    <section className={styles.notice} aria-labelledby="desk-notice-title">
      <h1 className={styles.noticeTitle} id="desk-notice-title">
        {title}
      </h1>
      <p className={styles.noticeText}>{text}</p>
      <div className={styles.noticeActions}>{children}</div>
    </section>
  );
}
