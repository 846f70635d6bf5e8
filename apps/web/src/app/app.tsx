import { AppProvider } from './provider';
import { AppRoutes } from './router';

/**
 * The whole app inside a router: the browser's (main.tsx), or the build's static one when it
 * prerenders a page (prerender.tsx). Both draw this same tree, so the browser can take over the
 * prerendered HTML as it is (hydration) instead of drawing the page again.
 */
export function App(): React.JSX.Element {
  return (
    <AppProvider>
      <AppRoutes />
    </AppProvider>
  );
}
