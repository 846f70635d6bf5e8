import { Component, type ReactNode } from 'react';
import { Outlet, useLocation } from 'react-router';

import { PageTakenOver } from '../../shared/browser/use-is-app-running';
import { RootErrorPage, RouteErrorPage } from './route-error-page';

interface ErrorBoundaryProps {
  children: ReactNode;
  /** What shows instead of the children once one of them threw. */
  fallback: (error: unknown) => ReactNode;
  /** The address: going elsewhere renders the children again. */
  resetKey: string;
}

interface ErrorBoundaryState {
  failure: { error: unknown } | null;
  resetKey: string;
}

class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { failure: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<ErrorBoundaryState> {
    return { failure: { error } };
  }

  static getDerivedStateFromProps(
    props: ErrorBoundaryProps,
    state: ErrorBoundaryState,
  ): Partial<ErrorBoundaryState> | null {
    return props.resetKey === state.resetKey ? null : { failure: null, resetKey: props.resetKey };
  }

  override render(): ReactNode {
    const { failure } = this.state;
    return failure ? this.props.fallback(failure.error) : this.props.children;
  }
}

/**
 * Where a page that throws while rendering, or whose code cannot be loaded, is replaced by
 * RouteErrorPage: inside the frame around it (the site's header and footer, the member menu),
 * which keeps working. Another address tries again.
 */
export function PageErrorBoundary(): React.JSX.Element {
  const { pathname } = useLocation();
  return (
    <ErrorBoundary resetKey={pathname} fallback={(error) => <RouteErrorPage error={error} />}>
      <Outlet />
    </ErrorBoundary>
  );
}

/** The same for an error in the site's frame itself, which is then not there to hold it. */
export function RootErrorBoundary({ children }: { children: ReactNode }): React.JSX.Element {
  const { pathname } = useLocation();
  return (
    <ErrorBoundary
      resetKey={pathname}
      fallback={(error) => (
        <>
          {/* The page that failed is not there to say the app runs (use-is-app-running.tsx). */}
          <PageTakenOver />
          <RootErrorPage error={error} />
        </>
      )}
    >
      {children}
    </ErrorBoundary>
  );
}
