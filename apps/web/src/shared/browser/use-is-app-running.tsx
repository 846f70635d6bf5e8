import {
  createContext,
  type ReactNode,
  startTransition,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
} from 'react';

interface AppRunning {
  isRunning: boolean;
  /** Called once the page the build drew has been taken over (PageTakenOver below). */
  takenOver: () => void;
}

// Outside a PageTakeover (a page the browser draws itself, the tests' apps) the app runs from
// the first render.
const AppRunningContext = createContext<AppRunning>({ isRunning: true, takenOver: () => {} });

/**
 * False while the app is taking over a page the build prerendered (hydration draws what the server
 * drew, and the server has no app running), true once it has; always true on a page the browser
 * drew itself. What only works with the app's code, a form's submit above all, waits on it.
 */
export function useIsAppRunning(): boolean {
  return useContext(AppRunningContext).isRunning;
}

/**
 * Around the app on a page the build drew (main.tsx while it takes the page over, and
 * prerender.tsx, which draws what it takes over). Until PageTakenOver has been drawn, the app is
 * not running; then it is, in a transition.
 *
 * Why not useSyncExternalStore with `false` as the server's snapshot, which knows the same
 * without a marker: React re-renders every such component synchronously once the page is taken
 * over, and a synchronous render right after hydration also runs every effect of the page in the
 * same task (each query's first request among them): one task of 67 ms on /auth/login with the
 * CPU slowed 2 x, the longest after the page's script evaluation (Lighthouse's Total Blocking
 * Time, issue 30). In a transition React renders in slices, and runs the effects in a task of
 * their own unless something else asks for a synchronous render (react-hook-form's useForm does,
 * once, as it mounts).
 */
export function PageTakeover({ children }: { children: ReactNode }): React.JSX.Element {
  const [isRunning, setIsRunning] = useState(false);
  const takenOver = useCallback(() => startTransition(() => setIsRunning(true)), []);
  const value = useMemo(() => ({ isRunning, takenOver }), [isRunning, takenOver]);
  return <AppRunningContext.Provider value={value}>{children}</AppRunningContext.Provider>;
}

/**
 * Drawn beside the page, inside the Suspense boundary that holds every page (app/router.tsx), and
 * in the root error page: its effect runs when that boundary has been taken over, which is the
 * last part of the page to be (the page's code loads lazily). Telling the app it runs any sooner
 * would change what a part still to be taken over draws: React would hold the change until that
 * part is taken over, or draw the part afresh.
 */
export function PageTakenOver(): null {
  const { isRunning, takenOver } = useContext(AppRunningContext);
  useEffect(() => {
    if (!isRunning) takenOver();
  }, [isRunning, takenOver]);
  return null;
}
