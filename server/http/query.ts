import "server-only";
import { z } from "zod";
import { invalidInput } from "../kernel/errors";

// An endpoint's query string, read against its schema (endpoint.ts `query`). Values arrive as
// text: a schema coerces numbers itself (z.coerce); a parameter the schema takes as a list may
// repeat (`?tag=a&tag=b`, as OpenAPI's default `form` style with `explode` sends it).

export type QuerySchema<Q> = z.ZodObject & z.ZodType<Q>;

function takesList(field: z.ZodType): boolean {
  let inner: z.ZodType = field;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodDefault) inner = inner.unwrap() as z.ZodType;
  return inner instanceof z.ZodArray;
}

/** The query's parameters as `schema` parses them; 400 names the first wrong one. Unknown parameters are ignored. */
export function readQuery<Q>(url: URL, schema: QuerySchema<Q>): Q {
  const raw: Record<string, string | string[]> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    const values = url.searchParams.getAll(name);
    if (values.length === 0) continue;
    raw[name] = takesList(field as z.ZodType) ? values : values.at(-1)!;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidInput(parsed.error.issues);
  return parsed.data;
}
