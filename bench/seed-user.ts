// Creates the benchmark's user and API key through the app's services; prints them as JSON.
// Runs with the server's environment (DATABASE_URL, AUTH_SECRET) and the react-server condition.
import { createApiKey } from "@/server/accounts/service/api-keys";
import { createUser } from "@/server/accounts/service/users";
import { getPool } from "@/server/db";

const user = await createUser({ email: "bench@dispatch.local", password: "bench password 1", role: "user" });
const { key } = await createApiKey({ userId: user.id, name: "bench" });
await getPool().end();
process.stdout.write(`${JSON.stringify({ userId: user.id, apiKey: key })}\n`);
// Prisma keeps its own pool open; the script is done.
process.exit(0);
