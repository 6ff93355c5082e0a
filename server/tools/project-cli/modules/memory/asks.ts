import "server-only";
import type { Asked } from "../../module";
import type { MemoryUpdateInput } from "./schemas";

// How a memory write reads to the person asked to approve it: what will be remembered, in the
// words the agent wrote, and what will be forgotten (by its key, the only name a forgotten fact has).

export function asksUpdate(input: MemoryUpdateInput): Asked {
  const facts = "facts" in input ? input.facts : [input];
  const kept = facts.flatMap((f) => (f.value === null ? [] : [f.value]));
  const dropped = facts.flatMap((f) => (f.value === null ? [f.key.replaceAll(/[._]+/g, " ")] : []));
  const en = [kept.length ? `Remember ${kept.map((v) => `“${v}”`).join(", ")}` : "", dropped.length ? `${kept.length ? "and forget" : "Forget"} what you know of ${dropped.join(", ")}` : ""];
  const zh = [kept.length ? `记住${kept.map((v) => `“${v}”`).join("、")}` : "", dropped.length ? `${kept.length ? "并" : ""}忘掉关于${dropped.join("、")}的内容` : ""];
  return { en: `${en.filter(Boolean).join(" ")}?`, zh: `${zh.filter(Boolean).join("")}？` };
}
