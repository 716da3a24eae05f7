// Builds the developer console into dist/console, served by the service at /console.
import { defineConfig } from 'vite';

const root = import.meta.dirname;

export default defineConfig(({ command }) => ({
  root,
  // React's production build whatever NODE_ENV the caller has (Jest runs the build with NODE_ENV=test,
  // which would otherwise bundle React's development build, four times larger).
  define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
  base: '/console/',
  // React's automatic JSX runtime through Vite's own esbuild step: no React plugin (no fast refresh
  // needed for a build, and one dependency fewer).
  esbuild: { jsx: 'automatic', jsxDev: false },
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
}));
