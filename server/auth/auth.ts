import "server-only";
import NextAuth, { CredentialsSignin } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { env } from "../env";
import { logger } from "../logger";
import { verifyCredentials } from "./credentials";

class InvalidCredentials extends CredentialsSignin {
  code = "invalid_credentials";
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
      if (error.name === "CredentialsSignin" || error.name === "InvalidCredentials") logger.info({ reason: error.name }, "sign-in refused");
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
      async authorize(credentials) {
        const email = typeof credentials?.email === "string" ? credentials.email : "";
        const password = typeof credentials?.password === "string" ? credentials.password : "";
        if (!email || !password) throw new InvalidCredentials();
        const user = await verifyCredentials({ email, password });
        if (!user) throw new InvalidCredentials();
        return { id: user.id, email: user.email, name: user.name ?? user.email };
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user?.id) token.sub = user.id;
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      return session;
    },
  },
});
