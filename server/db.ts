import "server-only";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "./generated/prisma/client";
import { env, requireDatabaseUrl } from "./env";

// One client per process; kept on globalThis so dev hot reloads do not open new pools.
const globalForDb = globalThis as unknown as { dispatchDb?: PrismaClient };

function createClient(): PrismaClient {
  const adapter = new PrismaPg({
    connectionString: requireDatabaseUrl(),
    max: env.DATABASE_POOL_MAX,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  return new PrismaClient({ adapter });
}

export function getDb(): PrismaClient {
  globalForDb.dispatchDb ??= createClient();
  return globalForDb.dispatchDb;
}
