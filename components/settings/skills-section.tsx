"use client";

import { useId, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary } from "@/components/i18n/use-dictionary";

// The chat settings' skills section (enabled_skills, docs/skills.md): which skills the assistant
// is shown. Hiding one takes its card and document out of the assistant's prompt; it does not
// forbid anything (what the assistant may do is the server's allow-list).

export function SkillsSection() {
  const t = useDictionary().settings.skills;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const title = useId();
  const current = useQuery(trpc.skills.get.queryOptions());
  // The ticked boxes show as clicked at once, and go back to what is stored if saving fails.
  const [choosing, setChoosing] = useState<string[] | null>(null);
  const save = useMutation(
    trpc.skills.set.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.skills.get.queryKey(), data),
      onSettled: () => setChoosing(null),
    }),
  );
  const enabled = choosing ?? current.data?.enabledSkills ?? [];
  const toggle = (name: string, on: boolean) => {
    const next = (current.data?.skills ?? []).map((s) => s.name).filter((n) => (n === name ? on : enabled.includes(n)));
    setChoosing(next);
    save.mutate({ enabledSkills: next });
  };

  return (
    <section aria-labelledby={title} data-testid="skills-section">
      <h2 id={title}>{t.title}</h2>
      <fieldset disabled={current.isPending || save.isPending}>
        <legend className="muted">{t.question}</legend>
        {(current.data?.skills ?? []).map((skill) => (
          <div className="field" key={skill.name}>
            <label>
              <input type="checkbox" checked={enabled.includes(skill.name)} onChange={(e) => toggle(skill.name, e.target.checked)} data-testid={`skill-${skill.name}`} />{" "}
              {t.names[skill.name] ?? skill.name}
            </label>
            <span className="muted">{t.actions(skill.actions.join(", "))}</span>
          </div>
        ))}
      </fieldset>
      <p className="muted">{t.hint}</p>
      {save.isSuccess ? (
        <p className="muted" role="status">
          {t.saved}
        </p>
      ) : null}
      {current.isError || save.isError ? (
        <p className="chat-run-error" role="alert">
          {(save.error ?? current.error)?.message ?? t.failed}
        </p>
      ) : null}
    </section>
  );
}
