"use client";

import { useId, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";
import { useDictionary, useRequestErrorText } from "@/components/i18n/use-dictionary";

// The chat settings' approvals section: which of the assistant's changes wait for the user's
// approval (docs/approvals.md). Takes no props; the settings page renders it as it is. Each
// choice names its label and hint in the dictionary (settings.approvals).

const CHOICES = [
  { value: "always", hint: "alwaysHint" },
  { value: "others", hint: "othersHint" },
  { value: "never", hint: "neverHint" },
] as const;

type Policy = (typeof CHOICES)[number]["value"];

export function ApprovalPolicySection() {
  const t = useDictionary().settings.approvals;
  const errorText = useRequestErrorText();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = useId();
  const current = useQuery(trpc.approvalPolicy.get.queryOptions());
  // The choice shows as made in the click's own render (a controlled radio would otherwise snap
  // back until the request starts), and goes back to what is stored if saving fails.
  const [choosing, setChoosing] = useState<Policy | null>(null);
  const save = useMutation(
    trpc.approvalPolicy.set.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.approvalPolicy.get.queryKey(), data),
      onSettled: () => setChoosing(null),
    }),
  );
  const selected: Policy | undefined = choosing ?? current.data?.policy;

  return (
    <section aria-labelledby={`${name}-title`} data-testid="approval-policy-section">
      <h2 id={`${name}-title`}>{t.title}</h2>
      <fieldset disabled={current.isPending || save.isPending}>
        <legend className="muted">{t.question}</legend>
        {CHOICES.map((choice) => (
          <div className="field" key={choice.value}>
            <label>
              <input
                type="radio"
                name={name}
                value={choice.value}
                checked={selected === choice.value}
                onChange={() => {
                  setChoosing(choice.value);
                  save.mutate({ policy: choice.value });
                }}
                data-testid={`approval-policy-${choice.value}`}
              />{" "}
              {t[choice.value]}
            </label>
            <span className="muted">{t[choice.hint]}</span>
          </div>
        ))}
      </fieldset>
      {save.isSuccess ? (
        <p className="muted" role="status">
          {t.saved}
        </p>
      ) : null}
      {current.isError || save.isError ? (
        <p className="chat-run-error" role="alert">
          {t.failed}: {errorText(save.error ?? current.error)}
        </p>
      ) : null}
    </section>
  );
}
