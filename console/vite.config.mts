// Builds the developer console into dist/console, served by the service at /console.
import { defineConfig } from 'vite';

const root = import.meta.dirname;

export default defineConfig({
  root,
  base: '/console/',
  // React's automatic JSX runtime through Vite's own esbuild step: no React plugin (no fast refresh
  // needed for a build, and one dependency fewer).
  esbuild: { jsx: 'automatic' },
  build: {
    outDir: `${root}/../dist/console`,
    emptyOutDir: true,
    target: 'es2022',
    // No data: URIs (the CSP allows images and fonts from 'self' only) and no inline preload script.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  // `npx vite --config console/vite.config.mts` during development, with `npm run start:dev` on :3000.
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/admin': 'http://127.0.0.1:3000' } },
});
