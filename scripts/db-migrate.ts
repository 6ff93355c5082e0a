// `npm run db:migrate`: applies pending prisma/migrations, then changed prisma/sql/functions, to the
// database in DATABASE_URL (over DATABASE_URL_UNPOOLED when set: migrations take session locks a
// transaction pooler does not keep).
import { env } from "../server/env";
import { DatabaseConnectionError, describeConnection, migrate } from "./lib/migrator";

const log = (line: string) => console.log(`[db:migrate] ${line}`);

function fail(message: string): never {
  console.error(`[db:migrate] ${message}`);
  process.exit(1);
}

/** Error text can echo the connection string back; the password never reaches the terminal. */
function withoutPassword(text: string, connectionString: string): string {
  let password: string;
  try {
    password = decodeURIComponent(new URL(connectionString).password);
  } catch {
    return text;
  }
  return password ? text.split(password).join("***") : text;
}

async function main(): Promise<void> {
  const url = env.DATABASE_URL_UNPOOLED ?? env.DATABASE_URL;
  if (!url) {
    fail(
      "DATABASE_URL is not set. Set it to the PostgreSQL database to migrate " +
        "(postgresql://user:password@host:5432/dbname). For local development there is nothing to do: " +
        "`npm run dev` starts the embedded database and migrates it automatically.",
    );
  }
  log(`Migrating ${describeConnection(url)}`);
  try {
    const { applied, functions } = await migrate({ connectionString: url, log });
    log(applied.length + functions.length > 0 ? `Applied ${applied.length} migration(s) and ${functions.length} function file(s)` : "Database schema and functions are up to date");
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (e instanceof DatabaseConnectionError) {
      fail(withoutPassword(`${message}. Check that PostgreSQL is running and that DATABASE_URL (host, port, user, password, database) is right.`, url));
    }
    fail(withoutPassword(message, url));
  }
}

await main();
