import "server-only";
import { AppError } from "../../kernel/errors";
import { skillCatalog, SKILL_NAMES } from "../project-cli/skills";
import { findUserHiddenSkills, listBindingHiddenSkills, setBindingHiddenSkills, setUserHiddenSkills } from "../repository/skills";

// enabled_skills, per user (the chat's settings) and per runner binding (the console): which
// skills' index cards and documents the agent sees. What it may run is the allow-list's and the
// router's business, never this (docs/skills.md). Stored as the skills hidden, so a skill added
// later shows until someone hides it.

export type SkillView = { name: string; summary: string; actions: string[] };

const enabledOf = (hidden: readonly string[]) => SKILL_NAMES.filter((name) => !hidden.includes(name));

function hiddenFrom(enabledSkills: readonly string[], field: string): string[] {
  const unknown = enabledSkills.filter((name) => !SKILL_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new AppError("BAD_REQUEST", `${field}: no skill named ${unknown.join(", ")}; the skills are ${SKILL_NAMES.join(", ")}`, { field });
  }
  return SKILL_NAMES.filter((name) => !enabledSkills.includes(name));
}

/** The signed-in user's skills, and which of them the agent shows. */
export async function getUserSkills({ userId }: { userId: string }): Promise<{ skills: SkillView[]; enabledSkills: string[] }> {
  return { skills: skillCatalog(), enabledSkills: enabledOf(await findUserHiddenSkills({ userId })) };
}

/** Applies to the user's next runs. */
export async function setUserSkills({ userId, enabledSkills }: { userId: string; enabledSkills: readonly string[] }) {
  const hidden = hiddenFrom(enabledSkills, "enabledSkills");
  await setUserHiddenSkills({ userId, hidden });
  return { skills: skillCatalog(), enabledSkills: enabledOf(hidden) };
}

/** Every binding's enabled skills, for the console. */
export async function listBindingSkills(): Promise<{ skills: SkillView[]; bindings: { bindingId: string; enabledSkills: string[] }[] }> {
  const rows = await listBindingHiddenSkills();
  return { skills: skillCatalog(), bindings: rows.map((r) => ({ bindingId: r.bindingId, enabledSkills: enabledOf(r.hidden) })) };
}

/** Applies to the binding's next runs, on top of what each user hid. */
export async function setBindingSkills({ bindingId, enabledSkills }: { bindingId: string; enabledSkills: readonly string[] }) {
  const hidden = hiddenFrom(enabledSkills, "enabledSkills");
  if (!(await setBindingHiddenSkills({ bindingId, hidden }))) throw new AppError("NOT_FOUND", "That binding does not exist (it may have been removed)");
  return { bindingId, enabledSkills: enabledOf(hidden) };
}
