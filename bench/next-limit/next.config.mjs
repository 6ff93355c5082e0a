// The Next.js limit app. The bench copies this folder to <repo>/.next-limit and builds it
// there, so it resolves the same `next` (and React) from the repository's node_modules.
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

export default {
  turbopack: { root },
  outputFileTracingRoot: root,
  // The repository's typecheck covers the route; the build need not check it again.
  typescript: { ignoreBuildErrors: true },
};
