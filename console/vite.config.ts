/// <reference types="vitest/config" />
import preact from "@preact/preset-vite";
import { defineConfig } from "vite";

// Served by the runtime under /console/ (devtools/local/console.py); in the cloud from S3 at the same path.
export default defineConfig({
  base: "/console/",
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", sourcemap: false },
  server: { proxy: { "/v3": "http://127.0.0.1:3000", "/console/session": "http://127.0.0.1:3000" } },
  test: { environment: "jsdom", include: ["test/**/*.test.{ts,tsx}"], globals: false },
});
