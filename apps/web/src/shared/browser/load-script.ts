import { useCommonText } from '../i18n/common-text';

/** What a person reads when a provider's script would not load: the providers are sign-in's. */
export function signInServiceNotLoaded(): string {
  return useCommonText.now('signInServiceNotLoaded');
}

/**
 * Loads a third-party script (Google Identity Services, Sign in with Apple JS) once per page;
 * later calls get the same promise. A failed load can be tried again.
 */
const loads = new Map<string, Promise<void>>();

export function loadScript(src: string): Promise<void> {
  let load = loads.get(src);
  if (!load) {
    load = new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => {
        loads.delete(src);
        script.remove();
        reject(new Error(signInServiceNotLoaded()));
      };
      document.head.append(script);
    });
    loads.set(src, load);
  }
  return load;
}
