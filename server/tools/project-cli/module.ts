import "server-only";
import { z } from "zod";
import { logger } from "@/server/logger";
import type { Language, Translations, UiMessages } from "@/server/ui-schema/messages";
import type { UiNodeInput, UiStatus } from "@/server/ui-schema/schema";
import type { ToolContext } from "./context";

// What a project_cli module is: its methods (strict input, handler, read or write, the card
// its result gets) and the cards it draws, with their words. A module folder exports one
// ModuleDefinition and modules/registry.ts lists it; everything else (the whitelist, the
// allow-list default, the tool's prose, ui_hints, the compiler, the runner manifest) is
// derived from that list.

/** ui_hints as stored: a kind that picks the card, and that kind's plain-JSON facts. */
export type UiHints = { kind: string } & Record<string, unknown>;

/** How a write's call reads to the person asked to approve it, in each language the cards speak. */
export type Asked = Record<Language, string>;

/** Reads leave the user's data as it was; writes change it. */
type MethodKind = "read" | "write";

export type MethodDefinition = {
  kind: MethodKind;
  /**
   * The strict input schema, built on first use. Its description is the sentence the tool's
   * prose gives the method, and its fields' descriptions are what the model reads.
   */
  readonly input: z.ZodType;
  handler: (ctx: ToolContext, input: unknown) => Promise<unknown>;
  /** ui_hints for the handler's data; a method without one gets no card. */
  hints?: (data: unknown) => UiHints | null;
  /** An input the method accepts, for its readers; the router's tests call every method with it. */
  example: unknown;
  /** Mistakes worth warning about in the method's document (the skill the agent reads on demand). */
  pitfalls?: readonly string[];
  /**
   * A write's reach: whether this call (its input already validated) reaches someone other than
   * the user (an invitation, a shared event, a deletion that takes invitations with it). The
   * approval policy `others` asks a person exactly for these. Absent on reads.
   */
  involvesOthers?: (input: unknown) => boolean;
  /** A write's reach as declared, before any input: what an MCP client's tool annotations can say (server/mcp-serve). */
  reach?: "never" | "always" | "depends";
  /** A write's call as a question a person answers ("Create “Sync” and invite ana@example.com?"): the approval card's title. */
  asks?: (input: unknown) => Asked;
  /** The input fields the approval card lists under its question (the rest are in the question, or ids nobody reads). */
  shows?: readonly string[];
};

/** One card kind: the hint schema (with its `kind` literal) and how it becomes UiSchema nodes. */
export type CardDefinition = {
  kind: string;
  schema: z.ZodType<UiHints>;
  status(hints: UiHints): UiStatus;
  build(hints: UiHints, language: Language, common: UiMessages): UiNodeInput[];
};

export type ModuleDefinition = {
  name: string;
  /** What the module reaches, as the tool's prose names it: "calendar", "contacts". */
  subject: string;
  /** The skill's index card: what it is for and when to use it, one sentence the prompt always carries. */
  summary: string;
  methods: Readonly<Record<string, MethodDefinition>>;
  cards: readonly CardDefinition[];
  /** Rules for using the module, one sentence each: its skill document carries them, read on demand. */
  rules: readonly string[];
};

type MethodSpec<S extends z.ZodType> = {
  input: () => S;
  handler: (ctx: ToolContext, input: z.output<S>) => Promise<unknown>;
  hints?: (data: unknown) => UiHints | null;
  example: z.input<S>;
  pitfalls?: readonly string[];
} & (
  | { kind: "read" }
  // Every write says whom it reaches, so a new module's writes are never asked about by a list
  // elsewhere, and how it reads as a question, so its approval card speaks a person's words.
  | { kind: "write"; involvesOthers: boolean | ((input: z.output<S>) => boolean); asks: (input: z.output<S>) => Asked; shows?: readonly string[] }
);

/** A method; the handler receives its own schema's output, because the router parses with it. */
export function method<S extends z.ZodType>(spec: MethodSpec<S>): MethodDefinition {
  let schema: S | undefined;
  const reach = spec.kind === "write" ? spec.involvesOthers : undefined;
  return {
    kind: spec.kind,
    get input() {
      return (schema ??= spec.input());
    },
    handler: spec.handler as MethodDefinition["handler"],
    example: spec.example,
    ...(spec.hints ? { hints: spec.hints } : {}),
    ...(spec.pitfalls ? { pitfalls: spec.pitfalls } : {}),
    ...(reach === undefined
      ? {}
      : {
          involvesOthers: typeof reach === "function" ? (input: unknown) => reach(input as z.output<S>) : () => reach,
          reach: typeof reach === "function" ? "depends" : reach ? "always" : "never",
        }),
    ...(spec.kind === "write" ? { asks: (input: unknown) => spec.asks(input as z.output<S>), ...(spec.shows ? { shows: spec.shows } : {}) } : {}),
  };
}

/**
 * ui_hints from a method's data. The data is re-read with its schema because it crossed a
 * process boundary; data that does not match gets no card rather than a wrong one.
 */
export function hintsFrom<S extends z.ZodType>(schema: S, build: (data: z.output<S>) => UiHints): (data: unknown) => UiHints | null {
  return (data) => {
    const parsed = schema.safeParse(data);
    if (parsed.success) return build(parsed.data);
    logger.warn({ issues: parsed.error.issues.slice(0, 5) }, "project_cli data does not match its schema; no ui_hints");
    return null;
  };
}

/** A card kind whose words (W) the module keeps in every card language. */
export function card<S extends z.ZodObject<{ kind: z.ZodLiteral<string> }>, W>(
  words: Translations<W>,
  spec: {
    schema: S;
    status: (hints: z.output<S>) => UiStatus;
    build: (hints: z.output<S>, words: W, common: UiMessages) => UiNodeInput[];
  },
): CardDefinition {
  return {
    kind: spec.schema.shape.kind.value,
    schema: spec.schema as unknown as z.ZodType<UiHints>,
    status: (hints) => spec.status(hints as z.output<S>),
    build: (hints, language, common) => spec.build(hints as z.output<S>, words[language], common),
  };
}

/** The hint kind a card template is picked by. */
export const hintKind = <K extends string>(kind: K) => z.literal(kind).describe("Hint kind; picks the card template");

/** Text a hint carries: trimmed, never empty. */
export const hintText = () => z.string().trim().min(1).max(4_000);

/** A handler's nullable text as an optional hint field (blank means absent). */
export const optionalText = (v: string | null | undefined) => (v?.trim() ? v : undefined);
