import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

import { catalogModules } from './scripts/catalog-modules.ts';
import { pagePreloads } from './scripts/page-preloads.ts';
import { pageModulesByPath } from './src/app/page-modules.ts';

// The API serves the built app in production; in development `vite` proxies /api to it.
export default defineConfig({
  plugins: [react(), catalogModules(), pagePreloads(pageModulesByPath)],
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
});
