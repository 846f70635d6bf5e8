import { useEffect } from 'react';
import { Slide, ToastContainer, toast } from 'react-toastify/unstyled';
// The toasts' stylesheet as a file of the build: react-toastify's main entry would inject it as an
// inline <style>, which the Content-Security-Policy refuses (every import is of the unstyled
// entry, so there is one toast store).
import 'react-toastify/ReactToastify.css';

import { toastRegion } from './toasts';

/**
 * The toasts' container (top-right, 5000 ms, newest on top), loaded with the first toast
 * (toast-region.tsx). Its effect runs after the container's own subscription, so the toasts that
 * waited are shown into a container that is listening.
 */
export function LoadedToastContainer({ label }: { label: string }): React.JSX.Element {
  useEffect(() => toastRegion.attach(toast), []);
  return (
    <ToastContainer
      position="top-right"
      autoClose={5000}
      transition={Slide}
      newestOnTop
      aria-label={label}
    />
  );
}
