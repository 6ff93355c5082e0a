import "server-only";
import type { z } from "zod";
import { AppError } from "../errors";

/** Parses service input, or throws BAD_REQUEST naming each field to fix. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message));
  throw new AppError("BAD_REQUEST", problems.join("; "), { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) });
}
