import "server-only";
import { z } from "zod";
import { body, caption, clip, countCaption, humanizeKey, SHORT, title } from "@/server/ui-schema/compile";
import type { Translations } from "@/server/ui-schema/messages";
import { isoDateTimeSchema, MAX_CHILDREN, type UiNodeInput } from "@/server/ui-schema/schema";
import { card, hintKind, hintText } from "../../module";

// The memory card: facts read or written, as labelled rows.

const memoryFactHintSchema = z
  .strictObject({
    key: hintText().describe("What the fact is about, e.g. preferred_meeting_time"),
    value: hintText().describe("The fact itself"),
    updatedAt: isoDateTimeSchema.optional().describe("When the fact was last written"),
  })
  .describe("One fact the agent keeps about the user");

const memoryFactsHintSchema = z
  .strictObject({
    kind: hintKind("memory.facts"),
    action: z.enum(["read", "updated"]).describe("read for memory.read, updated for memory.update"),
    facts: z.array(memoryFactHintSchema).describe("Facts read, or the facts written; may be empty"),
  })
  .describe("memory.read and memory.update");

type Words = {
  memoryReadTitle: string;
  memoryUpdatedTitle: string;
  memoryUpdatedBadge: string;
  factsCount: (n: number) => string;
  noFacts: string;
  lastUpdated: string;
};

const words: Translations<Words> = {
  en: {
    memoryReadTitle: "What I remember about you",
    memoryUpdatedTitle: "Memory updated",
    memoryUpdatedBadge: "Saved",
    factsCount: (n) => (n === 1 ? "1 fact" : `${n} facts`),
    noFacts: "Nothing remembered yet.",
    lastUpdated: "Last updated",
  },
  zh: {
    memoryReadTitle: "我记得的关于您的信息",
    memoryUpdatedTitle: "记忆已更新",
    memoryUpdatedBadge: "已保存",
    factsCount: (n) => `${n} 条信息`,
    noFacts: "还没有记住任何信息。",
    lastUpdated: "最近更新",
  },
};

export const memoryCards = [
  card(words, {
    schema: memoryFactsHintSchema,
    status: (hints) => (hints.action === "updated" ? "success" : "info"),
    build: (hints, m, common) => {
      const updated = hints.action === "updated";
      const nodes: UiNodeInput[] = [title(updated ? m.memoryUpdatedTitle : m.memoryReadTitle)];
      if (updated) nodes.push({ type: "badge", label: m.memoryUpdatedBadge, status: "success" });
      if (hints.facts.length === 0) {
        nodes.push(body(m.noFacts));
        return nodes;
      }
      nodes.push(caption(countCaption(hints.facts.length, hints.facts.length, m.factsCount, common)));
      // A fact saved from a sentence ("Prefers mornings" under prefers_mornings) says it all: its
      // key as a label would only repeat it.
      const facts = hints.facts.slice(0, MAX_CHILDREN);
      const restates = (fact: (typeof facts)[number]) => fact.value.toLowerCase().startsWith(humanizeKey(fact.key).toLowerCase());
      const labelled = facts.filter((fact) => !restates(fact));
      for (const fact of facts.filter(restates)) nodes.push(body(fact.value));
      if (labelled.length > 0) nodes.push({ type: "key_value", items: labelled.map((fact) => ({ label: clip(humanizeKey(fact.key), SHORT), value: fact.value })) });
      const latest = hints.facts
        .map((fact) => fact.updatedAt)
        .filter((at): at is string => at !== undefined)
        .sort((a, b) => Date.parse(b) - Date.parse(a))[0];
      if (latest) nodes.push({ type: "datetime", value: latest, format: "datetime", label: m.lastUpdated });
      return nodes;
    },
  }),
];
