// The Studio's build: static files under dist/, served by the service at /studio (src/server/studio.ts).
// The SDK is taken from its sources, so the Studio always speaks the API of this checkout.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/studio/',
  plugins: [react()],
  resolve: {
    alias: { '@svc-cms/sdk': fileURLToPath(new URL('../sdk/src/index.ts', import.meta.url)) },
    // The repository root holds another React (GraphiQL's): one copy, the Studio's, in the bundle.
    dedupe: ['react', 'react-dom'],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Hashed names: the service caches assets for a year and index.html never.
    assetsDir: 'assets',
    // One bundle for every screen (about 210 kB gzip, under the 300 kB budget: docs/performance.md).
    chunkSizeWarningLimit: 800,
  },
  server: { proxy: { '/api': { target: process.env.SVC_URL ?? 'http://127.0.0.1:8080', ws: true } } },
});
