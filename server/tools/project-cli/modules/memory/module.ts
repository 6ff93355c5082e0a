import "server-only";
import { hintsFrom, method, type ModuleDefinition } from "../../module";
import { memoryCards } from "./cards";
import { memoryReadDataSchema, memoryUpdateDataSchema } from "./data";
import { readMemory, updateMemory } from "./handlers";
import { memoryReadInput, memoryUpdateInput } from "./schemas";

export const memoryModule: ModuleDefinition = {
  name: "memory",
  subject: "memory",
  methods: {
    // What the agent remembers is the answer itself: the user sees it as a card, not as JSON.
    read: method({
      kind: "read",
      input: memoryReadInput,
      handler: readMemory,
      hints: hintsFrom(memoryReadDataSchema, (d) => ({
        kind: "memory.facts",
        action: "read",
        facts: d.facts.map((f) => ({ key: f.key, value: f.value, updatedAt: f.updated_at })),
      })),
      example: {},
    }),
    update: method({
      kind: "write",
      input: memoryUpdateInput,
      handler: updateMemory,
      hints: hintsFrom(memoryUpdateDataSchema, (d) => ({
        kind: "memory.facts",
        action: "updated",
        facts: d.written.map((f) => ({ key: f.key, value: f.value, updatedAt: f.updated_at })),
      })),
      example: { facts: [{ key: "preferred_meeting_time", value: "mornings" }, { key: "home.city", value: null }] },
    }),
  },
  cards: memoryCards,
  promptRules: ["When the user tells you something lasting about themselves (a preference, a habit), save it with memory.update."],
};
