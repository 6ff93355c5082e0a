import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

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
    // Two files at a time even on two cores (vitest's default is one fewer than the cores): most
    // integration files wait on servers, timers and PostgreSQL rather than compute, and the
    // suite takes ~5 minutes instead of ~8 there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/setup-env.ts"],
  },
});
