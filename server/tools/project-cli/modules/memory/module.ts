import "server-only";
import type { z } from "zod";
import { hintsFrom, method, type ModuleDefinition } from "../../module";
import { asksUpdate } from "./asks";
import { memoryCards } from "./cards";
import { memoryFactDataSchema, memoryReadDataSchema, memoryUpdateDataSchema } from "./data";
import { readMemory, updateMemory } from "./handlers";
import { memoryReadInput, memoryUpdateInput } from "./schemas";

type Fact = z.output<typeof memoryFactDataSchema>;

/** The memory.facts card's hints: the facts read or written. */
function factsHint(action: "read" | "updated", facts: readonly Fact[]) {
  return { kind: "memory.facts", action, facts: facts.map((f) => ({ key: f.key, value: f.value, updatedAt: f.updated_at })) };
}

export const memoryModule: ModuleDefinition = {
  name: "memory",
  subject: "memory",
  summary: "What you remember about the user across conversations: save lasting facts they tell you (preferences, habits), forget them on request.",
  methods: {
    // What the agent remembers is the answer itself: the user sees it as a card, not as JSON.
    read: method({
      kind: "read",
      input: memoryReadInput,
      handler: readMemory,
      hints: hintsFrom(memoryReadDataSchema, (d) => factsHint("read", d.facts)),
      example: {},
    }),
    update: method({
      kind: "write",
      input: memoryUpdateInput,
      handler: updateMemory,
      // The user's own memory reaches nobody else.
      involvesOthers: false,
      // Every fact is in the question.
      asks: asksUpdate,
      shows: [],
      hints: hintsFrom(memoryUpdateDataSchema, (d) => factsHint("updated", d.written)),
      example: { facts: [{ key: "preferred_meeting_time", value: "mornings" }, { key: "home.city", value: null }] },
      pitfalls: ["A null value forgets the fact; reuse an existing key to change a fact rather than adding a near-duplicate."],
    }),
  },
  cards: memoryCards,
  rules: ["When the user tells you something lasting about themselves (a preference, a habit), save it with memory.update."],
};
