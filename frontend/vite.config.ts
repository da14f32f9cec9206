import { defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

// The API serves the built files at "/", so assets use relative URLs; in `npm run dev`
// requests to /api are proxied to a local API (XMD_API, default http://127.0.0.1:8000).
export default defineConfig({
  plugins: [vue()],
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  server: {
    proxy: { '/api': process.env.XMD_API ?? 'http://127.0.0.1:8000' },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.spec.ts'],
  },
})
