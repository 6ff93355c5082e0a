import "server-only";
import { env } from "../../env";
import { emailSchema } from "../../auth/credentials";
import { hashPassword } from "../../auth/password";
import { logger } from "../../logger";
import { insertFirstAdmin } from "../repository/first-admin";
import { countUsers } from "../repository/users";
import { seedDemoContacts } from "../../tools/project-cli/modules/contacts/seed";
import { passwordSchema } from "./users";

// A deployment with no start script in front of it (Vercel) has nobody who can sign in until
// someone creates a user: the server creates the first admin from DISPATCH_ADMIN_EMAIL and
// DISPATCH_ADMIN_PASSWORD when it starts on an empty database. `npm start` does the same before
// the server starts (scripts/lib/bootstrap.ts), so there this finds a user and does nothing.

/** Creates the first admin from the environment when no user exists yet; true when it did. */
export async function bootstrapFirstAdmin(): Promise<boolean> {
  const email = env.DISPATCH_ADMIN_EMAIL;
  const password = env.DISPATCH_ADMIN_PASSWORD;
  if (!email || !password) return false;
  if ((await countUsers()) > 0) return false;
  const parsedEmail = emailSchema.safeParse(email);
  const parsedPassword = passwordSchema.safeParse(password);
  if (!parsedEmail.success || !parsedPassword.success) {
    throw new Error(
      `DISPATCH_ADMIN_EMAIL and DISPATCH_ADMIN_PASSWORD must be an email address and a password of 8 to 200 characters (${[
        parsedEmail.success ? null : "the email",
        parsedPassword.success ? null : "the password",
      ]
        .filter(Boolean)
        .join(" and ")} is not)`,
    );
  }
  const id = await insertFirstAdmin({ email: parsedEmail.data, passwordHash: await hashPassword(parsedPassword.data) });
  if (!id) return false;
  // The offline demo model's examples name these contacts, as on a first `npm start`.
  await seedDemoContacts(id);
  logger.info({ email: parsedEmail.data }, "created the first admin from DISPATCH_ADMIN_EMAIL and DISPATCH_ADMIN_PASSWORD");
  return true;
}
