import "server-only";
import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { env } from "../env";
import { logger } from "../logger";
import { ACCOUNT_DEACTIVATED, verifyCredentials } from "./credentials";
import { clientAddress, recordSignIn, signInWait, TOO_MANY_ATTEMPTS } from "../limits/attempts";

class InvalidCredentials extends CredentialsSignin {
  code = "invalid_credentials";
}

/** The password was right but an admin deactivated the account: said so, since only the owner can tell. */
class AccountDeactivated extends CredentialsSignin {
  code = ACCOUNT_DEACTIVATED;
}

/** Too many failed sign-ins for the account or from the address: the code carries the seconds to wait. */
class TooManyAttempts extends CredentialsSignin {
  constructor(seconds: number) {
    super();
    this.code = `${TOO_MANY_ATTEMPTS}:${seconds}`;
  }
}

// Email + password sign-in with JWT sessions: no session row is read per request.
// The token carries only the user id; role and existence are checked against the
// database wherever they matter (server/auth/session.ts).
export const { handlers, auth, signIn, signOut } = NextAuth({
  secret: env.AUTH_SECRET,
  trustHost: true,
  // A wrong password is an expected outcome, not a server error worth a stack trace.
  logger: {
    error(error) {
      if (error.name === "CredentialsSignin" || error.name === "InvalidCredentials" || error.name === "TooManyAttempts" || error.name === "AccountDeactivated") logger.info({ reason: error.name }, "sign-in refused");
      else logger.error({ err: error }, "auth error");
    },
    warn(code) {
      logger.warn({ code }, "auth warning");
    },
    debug() {},
  },
  session: { strategy: "jwt", maxAge: 30 * 24 * 60 * 60 },
  pages: { signIn: "/sign-in" },
  providers: [
    Credentials({
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password : "";
        if (!email || !password) throw new InvalidCredentials();
        // Held back before the password is even checked, so guessing gains nothing while it waits.
        const account = email.trim().toLowerCase().slice(0, 254);
        const address = clientAddress(request.headers);
        const seconds = await signInWait({ email: account, address });
        if (seconds > 0) {
          logger.warn({ address, seconds }, "sign-in held back after repeated failures");
          throw new TooManyAttempts(seconds);
        }
        const user = await verifyCredentials({ email, password });
        await recordSignIn({ email: account, address, succeeded: !!user });
        if (!user) throw new InvalidCredentials();
        if (user.disabledAt) throw new AccountDeactivated();
        return { id: user.id, email: user.email, name: user.name ?? user.email, sessionVersion: user.sessionVersion };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user?.id) {
        token.sub = user.id;
        token.sessionVersion = user.sessionVersion ?? 0;
      }
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      session.sessionVersion = token.sessionVersion ?? 0;
      return session;
    },
  },
});
