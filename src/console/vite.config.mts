import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * The web console's build: `npm run build` writes dist/console/, which the service serves at `/`
 * (src/http/console.ts). `npm run console:dev` serves it with hot reload and sends /api to a
 * service on port 8080.
 */
const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  plugins: [preact()],
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    // No data: URLs for the console's own files: the page's CSP loads scripts and styles from 'self' only.
    assetsInlineLimit: 0,
    // One stylesheet and one script; the page is small enough not to split.
    cssCodeSplit: false,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
