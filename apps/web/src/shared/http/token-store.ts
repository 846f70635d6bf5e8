import type { TokenPair } from '@kegel/contract';

/** The two fixed localStorage keys; the same names in every version of the app. */
export const ACCESS_TOKEN_KEY = 'kegel-coach.accessToken';
export const REFRESH_TOKEN_KEY = 'kegel-coach.refreshToken';

/** A token is treated as expired this many seconds early, so it does not expire in flight. */
const EXPIRY_MARGIN_SECONDS = 10;

export interface TokenStore {
  read(): TokenPair | null;
  write(pair: TokenPair): void;
  clear(): void;
  /** Called after every write or clear, and on `notifyExternalChange`. */
  subscribe(listener: () => void): () => void;
  /** Another tab changed the storage: tell the subscribers to read again. */
  notifyExternalChange(): void;
}

/** What the token store needs of localStorage. */
export type TokenStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Storage that lasts as long as the process: where there is no localStorage (prerendering). */
export function createMemoryStorage(): TokenStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, value),
    removeItem: (key) => void items.delete(key),
  };
}

export function createTokenStore(storage: TokenStorage): TokenStore {
  const listeners = new Set<() => void>();
  const notify = (): void => listeners.forEach((listener) => listener());
  return {
    read() {
      const accessToken = storage.getItem(ACCESS_TOKEN_KEY);
      const refreshToken = storage.getItem(REFRESH_TOKEN_KEY);
      return accessToken && refreshToken ? { accessToken, refreshToken } : null;
    },
    write(pair) {
      storage.setItem(ACCESS_TOKEN_KEY, pair.accessToken);
      storage.setItem(REFRESH_TOKEN_KEY, pair.refreshToken);
      notify();
    },
    clear() {
      storage.removeItem(ACCESS_TOKEN_KEY);
      storage.removeItem(REFRESH_TOKEN_KEY);
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notifyExternalChange: notify,
  };
}

/** The `exp` claim (seconds) of a JWT, read without verifying: the server verifies. */
export function readExpiry(token: string): number | undefined {
  try {
    const payload = token.split('.')[1];
    if (!payload) return undefined;
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp : undefined;
  } catch {
    return undefined;
  }
}

export function isTokenExpired(token: string, nowMs: number): boolean {
  const exp = readExpiry(token);
  return exp === undefined || exp - EXPIRY_MARGIN_SECONDS <= nowMs / 1000;
}
