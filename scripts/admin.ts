// `npm run admin -- <command> [flags]`: user and API key administration from the shell.
import { parseArgs } from "node:util";
import { closeAppDb, prepareDatabase } from "./lib/bootstrap";

const usage = `Usage: npm run admin -- <command> [flags]

Commands:
  user:create   --email E --password P [--name N] [--admin]
  apikey:create --email E [--name N]        prints the new key as the last line
  apikey:list   --email E
  apikey:revoke --id ID`;

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === "--help" || command === "help") {
    console.log(usage);
    return;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      password: { type: "string" },
      name: { type: "string" },
      id: { type: "string" },
      admin: { type: "boolean", default: false },
    },
    strict: true,
  });
  const need = (key: "email" | "password" | "id"): string => values[key] ?? fail(`${command} needs --${key}\n\n${usage}`);

  // Validate the command before opening the database, so a typo answers at once.
  const commands = ["user:create", "apikey:create", "apikey:list", "apikey:revoke"];
  if (!commands.includes(command)) fail(`Unknown command: ${command}\n\n${usage}`);

  const db = await prepareDatabase();
  try {
    const { AppError } = await import("../server/errors");
    try {
      if (command === "user:create") {
        const { createUser } = await import("../server/services/users");
        const user = await createUser({ email: need("email"), password: need("password"), name: values.name, role: values.admin ? "admin" : "user" });
        console.log(`Created ${user.role} ${user.email} (${user.id})`);
      } else if (command === "apikey:create") {
        const { createApiKeyForEmail } = await import("../server/services/api-keys");
        const { key, record } = await createApiKeyForEmail({ email: need("email"), name: values.name });
        console.log(`Created API key ${record.id} (${record.prefix}…) for ${need("email")}. It is shown only once:`);
        console.log(key);
      } else if (command === "apikey:list") {
        const { findUserByEmail } = await import("../server/repositories/users");
        const { listApiKeys } = await import("../server/services/api-keys");
        const user = (await findUserByEmail({ email: need("email").toLowerCase() })) ?? fail(`No user with email ${need("email")}`);
        for (const k of await listApiKeys({ userId: user.id })) {
          console.log(`${k.id}  ${k.prefix}…  ${k.name}  ${k.revokedAt ? "revoked" : "active"}  created ${k.createdAt.toISOString()}`);
        }
      } else {
        const { revokeApiKey } = await import("../server/services/api-keys");
        const key = await revokeApiKey({ id: need("id") });
        console.log(`Revoked API key ${key.id} (${key.prefix}…)`);
      }
    } catch (err) {
      if (err instanceof AppError) fail(err.message);
      const { ZodError } = await import("zod");
      if (err instanceof ZodError) fail(err.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("\n"));
      throw err;
    }
  } finally {
    await closeAppDb();
    await db.stop();
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
