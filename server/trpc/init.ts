import "server-only";
import { initTRPC, TRPCError } from "@trpc/server";
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import superjson from "superjson";
import { ZodError } from "zod";
import { AppError, toAppError, type ErrorCode } from "../kernel/errors";
import { getSessionPrincipal, type Principal } from "../auth/session";
import { inputIssues } from "../kernel/input-issues";

export async function createTrpcContext(): Promise<{ principal: Principal | null }> {
  return { principal: await getSessionPrincipal() };
}

type TrpcCode = TRPCError["code"];
const trpcCodes: Record<ErrorCode, TrpcCode> = {
  BAD_REQUEST: "BAD_REQUEST",
  UNAUTHORIZED: "UNAUTHORIZED",
  FORBIDDEN: "FORBIDDEN",
  NOT_FOUND: "NOT_FOUND",
  // tRPC has no 406 (it never negotiates representations); no procedure throws it.
  NOT_ACCEPTABLE: "BAD_REQUEST",
  CONFLICT: "CONFLICT",
  // tRPC has no 410: what was asked for is not there any more, and the message says why.
  GONE: "NOT_FOUND",
  PAYLOAD_TOO_LARGE: "PAYLOAD_TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE: "UNSUPPORTED_MEDIA_TYPE",
  UNPROCESSABLE: "UNPROCESSABLE_CONTENT",
  RATE_LIMITED: "TOO_MANY_REQUESTS",
  INTERNAL: "INTERNAL_SERVER_ERROR",
  UPSTREAM_ERROR: "BAD_GATEWAY",
  SERVICE_UNAVAILABLE: "SERVICE_UNAVAILABLE",
  DEADLINE_EXCEEDED: "GATEWAY_TIMEOUT",
};

const t = initTRPC.context<typeof createTrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error, path }) {
    // No stack, ever: what a client needs is the code and the message.
    const { stack: _stack, ...data } = shape.data;
    const zod = error.cause instanceof ZodError ? inputIssues(error.cause.issues) : null;
    // A fault errorMapping never saw (thrown while the context was built, e.g. reading the
    // session during a database outage) is mapped here, so no driver message, socket path or
    // stack reaches the client, and an outage is a 503 like everywhere else.
    if (error.code === "INTERNAL_SERVER_ERROR" && !(error.cause instanceof AppError) && !zod) {
      const app = toAppError(error.cause ?? error, { trpcPath: path });
      const code = trpcCodes[app.code];
      return { ...shape, message: app.message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { ...data, code, httpStatus: app.status, zodIssues: null } };
    }
    return { ...shape, data: { ...data, zodIssues: zod } };
  },
});

// Services throw AppError (or anything else); map it once, here, to a tRPC error.
const errorMapping = t.middleware(async ({ next, path }) => {
  const result = await next();
  if (!result.ok) {
    const cause = result.error.cause;
    if (result.error.code === "INTERNAL_SERVER_ERROR" && cause && !(cause instanceof ZodError)) {
      const app = cause instanceof AppError ? cause : toAppError(cause, { trpcPath: path });
      throw new TRPCError({ code: trpcCodes[app.code], message: app.message, cause: app });
    }
  }
  return result;
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(errorMapping);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.principal) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in to continue" });
  return next({ ctx: { principal: ctx.principal } });
});

export const adminProcedure = protectedProcedure.use(({ ctx, next }) => {
  if (ctx.principal.role !== "admin") throw new TRPCError({ code: "FORBIDDEN", message: "Admins only" });
  return next({ ctx });
});
