"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary } from "../i18n/use-dictionary";

// One binding's enabled_skills in the console (docs/skills.md): the skills its runs are shown,
// on top of what each user hid. Visibility only; what runs may do is the allow-list's.

export function BindingSkills({ bindingId }: { bindingId: string }) {
  const t = useDictionary().console.runners;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const all = useQuery(trpc.skills.bindings.queryOptions());
  const save = useMutation(trpc.skills.setBinding.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.skills.bindings.queryKey() }) }));
  const names = all.data?.skills.map((s) => s.name) ?? [];
  const enabled = all.data?.bindings.find((b) => b.bindingId === bindingId)?.enabledSkills ?? names;
  return (
    <fieldset className="row" disabled={all.isPending || save.isPending} data-testid="binding-skills">
      <legend className="sr-only">{t.skills}</legend>
      {names.map((name) => (
        <label key={name}>
          <input
            type="checkbox"
            checked={enabled.includes(name)}
            onChange={(e) => save.mutate({ bindingId, enabledSkills: names.filter((n) => (n === name ? e.target.checked : enabled.includes(n))) })}
          />{" "}
          {name}
        </label>
      ))}
      {save.isError ? <span role="alert">{save.error.message}</span> : null}
    </fieldset>
  );
}
