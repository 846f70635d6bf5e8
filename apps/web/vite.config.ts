import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The API serves the built app in production; in development `vite` proxies /api to it.
export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: true,
    // scripts/measure-bundle.mjs reads it to tell what /home loads.
    manifest: true,
  },
  server: {
    proxy: { '/api': 'http://localhost:3000' },
  },
});
