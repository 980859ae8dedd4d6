import { defineConfig } from "vitest/config";

// The window renders with Preact through `preact/compat`: the code is written against React's
// API and types, and every import of React — ours and our dependencies' — resolves to Preact.
// react-dom was 207 of the first screen's 364 KB, and evaluating the bundle is on the path to
// the first interactive frame (docs/benchmarks.md). JSX is compiled by Vite itself for React's
// automatic runtime (tsconfig's "react-jsx"), which the aliases send to Preact's.
const preact = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react-dom\/test-utils$/, replacement: "preact/test-utils" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/compat/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/compat/jsx-dev-runtime" },
];

// Tauri serves the built files from disk; the dev server is only for `tauri dev`.
export default defineConfig({
  resolve: { alias: preact },
  clearScreen: false,
  server: { host: "127.0.0.1", port: 5173, strictPort: true },
  build: {
    target: "safari16",
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    // Vitest leaves one core free by default: one worker on a 2-core machine (58 s against 36).
    maxWorkers: "100%",
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    // The stylesheet as text, for the tests that check what it says (disabled buttons, paths).
    css: { include: [/styles\.css/] },
    // Node would load these packages itself, outside the aliases above, and they would render
    // with React: the tests must run what ships. Inlined, Vite resolves their imports of React.
    // @testing-library/react's "main" is CommonJS, whose require()s no alias reaches: its ES
    // module build instead.
    alias: [{ find: /^@testing-library\/react$/, replacement: "@testing-library/react/dist/@testing-library/react.esm.js" }],
    server: {
      deps: {
        inline: [/@testing-library\/react/, /zustand/, /virtua/, /react-markdown/, /hast-util-to-jsx-runtime/],
      },
    },
  },
});
