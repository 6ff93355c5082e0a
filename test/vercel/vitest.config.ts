import { defineConfig } from "vitest/config";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

// `npm run test:vercel`: the deployment smoke test (deployment.smoke.ts) on its own, since it builds
// the app with the Vercel CLI and runs without the suite's shared server and database.
export default defineConfig({
  root,
  resolve: {
    alias: [
      { find: /^@\/(.*)$/, replacement: `${root}$1` },
      { find: /^server-only$/, replacement: `${root}test/server-only-stub.ts` },
    ],
  },
  test: {
    include: ["test/vercel/**/*.smoke.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 15 * 60_000,
  },
});
