import "server-only";
import { z } from "zod";

// A compact, model-readable view of a method's zod schema, derived from it so it never
// drifts: types and hints per field, for INVALID_ACTION_INPUT errors and skill documents.

type Json = {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  format?: string;
  description?: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  items?: Json;
  properties?: Record<string, Json>;
  required?: string[];
  oneOf?: Json[];
  anyOf?: Json[];
};

export type InputSchemaDescription = string | { [key: string]: InputSchemaDescription } | InputSchemaDescription[];

function toJson(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Json;
}

const variants = (s: Json) => s.oneOf ?? s.anyOf;

/** The property every variant fixes to a different constant (`mode`), if there is one. */
function discriminator(options: Json[]): string | null {
  const first = options[0]?.properties ?? {};
  return Object.keys(first).find((k) => options.every((o) => o.properties?.[k]?.const !== undefined)) ?? null;
}

function typePhrase(s: Json): string {
  const options = variants(s);
  if (options) return options.map(typePhrase).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return `string enum(${s.enum.join("|")})`;
  if (s.type === "string") {
    if (s.format === "date") return "date YYYY-MM-DD";
    if (s.format === "date-time") return "datetime with offset";
    if (s.format === "uuid") return "id";
    return s.maxLength ? `string (max ${s.maxLength})` : "string";
  }
  if (s.type === "integer" || s.type === "number") {
    const range = s.minimum !== undefined && s.maximum !== undefined ? ` ${s.minimum}-${s.maximum}` : "";
    return `${s.type}${range}`;
  }
  return s.type ?? "any";
}

function describe(s: Json): InputSchemaDescription {
  const options = variants(s);
  if (options && options.some((o) => o.type === "object")) {
    const key = discriminator(options);
    if (!key) return { one_of: options.map(describe) };
    const out: Record<string, InputSchemaDescription> = { [key]: `string enum(${options.map((o) => o.properties![key]!.const).join("|")})` };
    for (const o of options) {
      const { [key]: _tag, ...rest } = describe(o) as Record<string, InputSchemaDescription>;
      out[`${key}=${String(o.properties![key]!.const)}`] = rest;
    }
    return out;
  }
  if (s.type === "object") {
    const required = new Set(s.required ?? []);
    return Object.fromEntries(
      Object.entries(s.properties ?? {}).map(([name, prop]) => [required.has(name) ? name : `${name}?`, describe(prop)]),
    );
  }
  if (s.type === "array" && s.items) {
    const item = describe(s.items);
    return typeof item === "string" ? `array of ${item}` : [item];
  }
  return s.description ? `${typePhrase(s)}: ${s.description}` : typePhrase(s);
}

/** Field by field: name (`?` when optional) to its type and meaning. */
export function describeInputSchema(schema: z.ZodType): InputSchemaDescription {
  return describe(toJson(schema));
}
