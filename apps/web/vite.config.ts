import { createRequire } from 'node:module';
import path from 'node:path';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

import { catalogModules } from './scripts/catalog-modules.ts';
import { linguiCountsWhenWritten } from './scripts/lingui-counts-when-written.ts';
import { pagePreloads } from './scripts/page-preloads.ts';
import { pageModulesByPath } from './src/app/page-modules.ts';

/**
 * React Router's production build. Its package.json sends every import to its development build
 * (remix-run/react-router#14102, open), whose `ENABLE_DEV_WARNINGS` builds warning messages on
 * every render of the routes and logs them in members' browsers; the production build is the same
 * code with that flag off, so the minifier drops those branches.
 */
const reactRouterProduction = path.join(
  path.dirname(createRequire(import.meta.url).resolve('react-router/package.json')),
  'dist/production/index.mjs',
);

// The API serves the built app in production; in development `vite` proxies /api to it.
export default defineConfig(({ command }) => ({
  plugins: [react(), catalogModules(), linguiCountsWhenWritten(), pagePreloads(pageModulesByPath)],
  // Builds only (the app's, the prerender's, and so the browser journeys'): the dev server keeps
  // the development build and its warnings. The unit tests never load this file (vitest.config.ts).
  resolve:
    command === 'build'
      ? { alias: [{ find: /^react-router$/, replacement: reactRouterProduction }] }
      : {},
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: true,
    // scripts/measure-bundle.mjs reads it to tell what each page loads.
    manifest: true,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000' },
  },
}));
