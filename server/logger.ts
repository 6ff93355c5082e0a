import "server-only";
import pino from "pino";
import { env } from "./env";

// Anything that could carry a secret is censored before a line is written.
export const logger = pino({
  level: env.NODE_ENV === "test" && env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL,
  base: undefined,
  redact: {
    paths: [
      "password",
      "*.password",
      "authorization",
      "*.authorization",
      "headers.authorization",
      "headers.cookie",
      "cookie",
      "credential",
      "*.credential",
      "token",
      "*.token",
      "apiKey",
      "*.apiKey",
      "secret",
      "*.secret",
    ],
    censor: "[redacted]",
  },
});
