import { z } from 'zod';

/**
 * Build-time settings (Vite inlines `import.meta.env.VITE_*` at build). The only place that reads
 * them; defaults make a plain `npm start` work.
 */
const WebEnvSchema = z.object({
  VITE_API_BASE_URL: z.string().min(1).default('/api'),
  VITE_MARKETING_SITE_URL: z.url().default('https://kegelcoach.app'),
  VITE_APP_STORE_URL: z.url().default('https://apps.apple.com/app/kegel-coach/id0000000000'),
  VITE_SUPPORT_EMAIL: z.email().default('support@kegelcoach.app'),
});

const parsed = WebEnvSchema.safeParse(import.meta.env);
if (!parsed.success) {
  throw new Error(
    `Invalid web build settings:\n${parsed.error.issues.map((issue) => `- ${issue.path.join('.')}: ${issue.message}`).join('\n')}`,
  );
}

export const env = {
  apiBaseUrl: parsed.data.VITE_API_BASE_URL.replace(/\/+$/, ''),
  marketingSiteUrl: parsed.data.VITE_MARKETING_SITE_URL.replace(/\/+$/, ''),
  appStoreUrl: parsed.data.VITE_APP_STORE_URL,
  supportEmail: parsed.data.VITE_SUPPORT_EMAIL,
};
