import "server-only";
import type { z } from "zod";
import { AppError } from "../kernel/errors";
import { inputIssues } from "../kernel/input-issues";

/** Parses service input, or throws BAD_REQUEST naming each field to fix. */
export function parseInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = inputIssues(parsed.error.issues);
  throw new AppError("BAD_REQUEST", issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "), { issues });
}
