/**
 * Build-time settings (Vite inlines `import.meta.env.VITE_*` at build). The only place that reads
 * them; defaults make a plain `npm start` work. Checked by hand, without zod, because this file is
 * on the first page's critical path.
 */
const source = import.meta.env as Record<string, string | undefined>;

function setting(name: string, fallback: string, isValid: (value: string) => boolean): string {
  const value = source[name]?.trim() || fallback;
  if (!isValid(value)) throw new Error(`Invalid web build setting ${name}: "${value}"`);
  return value;
}

const isUrl = (value: string): boolean => URL.canParse(value);
const isEmail = (value: string): boolean => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

export const env = {
  apiBaseUrl: setting(
    'VITE_API_BASE_URL',
    '/api',
    (value) => value.startsWith('/') || isUrl(value),
  ).replace(/\/+$/, ''),
  marketingSiteUrl: setting('VITE_MARKETING_SITE_URL', 'https://kegelcoach.app', isUrl).replace(
    /\/+$/,
    '',
  ),
  appStoreUrl: setting(
    'VITE_APP_STORE_URL',
    'https://apps.apple.com/app/kegel-coach/id0000000000',
    isUrl,
  ),
  supportEmail: setting('VITE_SUPPORT_EMAIL', 'support@kegelcoach.app', isEmail),
};
