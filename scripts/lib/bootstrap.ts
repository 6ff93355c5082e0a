import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "../../server/env";
import { checkExternalDatabase, startEmbeddedPostgres, type PostmasterHost, type RunningDatabase } from "./embedded-postgres";
import { migrate } from "./migrator";

// Status lines go to stderr, so the admin CLI's stdout carries only what scripts parse (ids, keys).
export const log = (line: string) => console.error(`[dispatch] ${line}`);

/**
 * The database the app should use: DATABASE_URL when set, else the embedded one under DATA_DIR
 * (its postmaster run by `host` when given: see startEmbeddedPostgres).
 */
export async function openDatabase(host?: PostmasterHost): Promise<RunningDatabase> {
  if (env.DATABASE_URL) {
    log("Using the database from DATABASE_URL");
    await checkExternalDatabase(env.DATABASE_URL);
    return { url: env.DATABASE_URL, stop: async () => {}, embedded: false };
  }
  return startEmbeddedPostgres({ dataDir: env.DATA_DIR, port: env.EMBEDDED_PG_PORT, log, host });
}

/** Opens the database, applies pending migrations, and points this process's env at it. */
export async function prepareDatabase(host?: PostmasterHost): Promise<RunningDatabase> {
  const db = await openDatabase(host);
  const { applied } = await migrate({ connectionString: db.url, log });
  log(applied.length ? `Applied ${applied.length} migration(s)` : "Database schema is up to date");
  env.DATABASE_URL = db.url;
  return db;
}

/** AUTH_SECRET from the environment, or one generated once and kept under DATA_DIR. */
export function resolveAuthSecret(): string {
  if (env.AUTH_SECRET) return env.AUTH_SECRET;
  const file = path.join(env.DATA_DIR, "auth-secret");
  if (!existsSync(file)) {
    mkdirSync(env.DATA_DIR, { recursive: true });
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600 });
    log(`Generated AUTH_SECRET in ${file}`);
  }
  return readFileSync(file, "utf8").trim();
}

/** Creates the first admin when there are no users yet, and says how to sign in. */
export async function ensureFirstAdmin(baseUrl: string): Promise<void> {
  const { hasAnyUser, createUser } = await import("../../server/accounts/service/users");
  const credentialsFile = path.join(env.DATA_DIR, "initial-admin.txt");
  if (await hasAnyUser()) {
    const hint = existsSync(credentialsFile) ? ` (first admin's credentials: ${credentialsFile})` : "";
    log(`Sign in at ${baseUrl}/sign-in${hint}`);
    return;
  }
  const email = env.DISPATCH_ADMIN_EMAIL ?? "admin@dispatch.local";
  const password = env.DISPATCH_ADMIN_PASSWORD ?? randomBytes(12).toString("base64url");
  const admin = await createUser({ email, password, role: "admin" });
  // A few contacts, so the offline demo model's examples ("schedule a call with Ana…") work at once.
  const { seedDemoContacts } = await import("../../server/tools/project-cli/modules/contacts/seed");
  await seedDemoContacts(admin.id);
  mkdirSync(env.DATA_DIR, { recursive: true });
  writeFileSync(credentialsFile, `email: ${email}\npassword: ${password}\n`, { mode: 0o600 });
  chmodSync(credentialsFile, 0o600); // a file left from an earlier database keeps its mode otherwise
  log(`Created the first admin. Sign in at ${baseUrl}/sign-in with`);
  log(`  email:    ${email}`);
  // The password goes to the file and to a person at a terminal, never to a log: stderr, or a
  // stdout that is not a terminal, is where a service manager collects the server's log.
  if (env.DISPATCH_ADMIN_PASSWORD) log("  password: (from DISPATCH_ADMIN_PASSWORD)");
  else if (process.stdout.isTTY) process.stdout.write(`[dispatch]   password: ${password}\n`);
  log(`  (${env.DISPATCH_ADMIN_PASSWORD ? "" : "the password is "}saved in ${credentialsFile}; more users: npm run admin -- user:create --email E --password P [--admin])`);
}

/** Ends this process's database connections, so a CLI exits once its work is done. */
export async function closeAppDb(): Promise<void> {
  const { closeDatabase } = await import("../../server/operations/repository");
  await closeDatabase();
}
