import "server-only";
import type { Asked } from "../../module";
import type { MemoryUpdateInput } from "./schemas";

// How a memory write reads to the person asked to approve it: what will be remembered, in the
// words the agent wrote (with what it is about when the words do not say it: "your favourite
// colour: “green”"), and what will be forgotten (by its key, the only name a forgotten fact has).

const spokenKey = (key: string) => key.replaceAll(/[._]+/g, " ").trim();

/** The fact as the question names it: its value, after its key when the value alone does not say what it is about. */
function named(key: string, value: string, language: keyof Asked): string {
  const about = spokenKey(key);
  const said = about.split(" ").every((word) => value.toLowerCase().includes(word.toLowerCase()));
  if (said) return `“${value}”`;
  return language === "zh" ? `${about}：“${value}”` : `your ${about}: “${value}”`;
}

export function asksUpdate(input: MemoryUpdateInput): Asked {
  const facts = "facts" in input ? input.facts : [input];
  const kept = facts.filter((f) => f.value !== null);
  const dropped = facts.flatMap((f) => (f.value === null ? [spokenKey(f.key)] : []));
  const remember = (language: keyof Asked) => kept.map((f) => named(f.key, f.value!, language));
  const en = [kept.length ? `Remember ${remember("en").join("; ")}` : "", dropped.length ? `${kept.length ? "and forget" : "Forget"} what you know of ${dropped.join(", ")}` : ""];
  const zh = [kept.length ? `记住${remember("zh").join("；")}` : "", dropped.length ? `${kept.length ? "并" : ""}忘掉关于${dropped.join("、")}的内容` : ""];
  return { en: `${en.filter(Boolean).join(" ")}?`, zh: `${zh.filter(Boolean).join("")}？` };
}
