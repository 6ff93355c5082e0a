import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/** The e2e server's embedded database, for what only time would otherwise do (ageing messages or requests). */
export async function withDatabase<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const info = JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "pg.json"), "utf8")) as { port: number; password: string };
  const client = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(info.password)}@127.0.0.1:${info.port}/dispatch` });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Sets the e2e user's approval policy. A new user's is `others` (docs/approvals.md); the chat's
 * approval flows are tested with `always`, where the demo model's memory writes ask too.
 */
export async function setE2eApprovalPolicy(email: string, policy: "always" | "others" | "never"): Promise<void> {
  await withDatabase((db) => db.query(`update users set approval_policy = $2 where email = lower($1)`, [email, policy]));
}
