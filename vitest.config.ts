import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL(".", import.meta.url));

// *.test.ts are unit tests; *.integration-test.ts run against a real PostgreSQL and,
// where they need it, the production server started by test/global-setup.ts.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\/(.*)$/, replacement: `${root}$1` },
      { find: /^server-only$/, replacement: `${root}test/server-only-stub.ts` },
    ],
  },
  test: {
    include: ["**/*.test.ts", "**/*.test.tsx", "**/*.integration-test.ts"],
    exclude: ["**/node_modules/**", ".next/**", ".next-*/**", ".data/**", "e2e/**", "test-results/**"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-env.ts"],
  },
});
