import "server-only";
import { z } from "zod";

// The methods' inputs, built on first use (see ../../module.ts); their data is described in data.ts.

const MAX_FACTS_PER_CALL = 20;

const key = () =>
  z
    .string()
    .min(1)
    .max(64)
    .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, "Use short snake_case or dot.case, e.g. preferred_meeting_time")
    .describe("What the fact is about, snake_case or dot.case, e.g. preferred_meeting_time");

const value = () =>
  z.string().trim().min(1).max(500).nullable().describe("The fact as a short sentence or value; null forgets the key");

const fact = () => z.strictObject({ key: key(), value: value() });

export const memoryReadInput = () => z.strictObject({}).describe("Read every fact kept about the user");

export const memoryUpdateInput = () =>
  z
    .union(
      [
        z.strictObject({
          facts: z.array(fact()).min(1).max(MAX_FACTS_PER_CALL).describe(`Facts to write, at most ${MAX_FACTS_PER_CALL}`),
        }),
        fact(),
      ],
      { error: "Give either facts: [{key, value}] or a single key and value" },
    )
    .describe("Write facts about the user (a value replaces the key's old one; null forgets it)");

export type MemoryUpdateInput = z.infer<ReturnType<typeof memoryUpdateInput>>;
