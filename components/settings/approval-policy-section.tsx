"use client";

import { useId } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "@/components/trpc-provider";

// The chat settings' approvals section: which of the assistant's changes wait for the user's
// approval (docs/approvals.md). Takes no props; the settings page renders it as it is.

const CHOICES = [
  { value: "always", label: "Always ask", hint: "Every change to your calendar or memory waits for your approval." },
  { value: "others", label: "Ask for changes that involve other people", hint: "Invitations, sharing, deleting or moving events, and new events with attendees wait; the rest goes ahead." },
  { value: "never", label: "Never ask", hint: "The assistant makes changes as soon as it decides to." },
] as const;

type Policy = (typeof CHOICES)[number]["value"];

export function ApprovalPolicySection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = useId();
  const current = useQuery(trpc.approvalPolicy.get.queryOptions());
  const save = useMutation(
    trpc.approvalPolicy.set.mutationOptions({
      onSuccess: (data) => queryClient.setQueryData(trpc.approvalPolicy.get.queryKey(), data),
    }),
  );
  const selected: Policy | undefined = save.isPending ? save.variables?.policy : current.data?.policy;

  return (
    <section aria-labelledby={`${name}-title`} data-testid="approval-policy-section">
      <h2 id={`${name}-title`}>Approvals</h2>
      <fieldset disabled={current.isPending || save.isPending}>
        <legend className="muted">When should the assistant ask before it changes something?</legend>
        {CHOICES.map((choice) => (
          <div className="field" key={choice.value}>
            <label>
              <input
                type="radio"
                name={name}
                value={choice.value}
                checked={selected === choice.value}
                onChange={() => save.mutate({ policy: choice.value })}
                data-testid={`approval-policy-${choice.value}`}
              />{" "}
              {choice.label}
            </label>
            <span className="muted">{choice.hint}</span>
          </div>
        ))}
      </fieldset>
      {save.isSuccess ? (
        <p className="muted" role="status">
          Saved. New conversations and messages use it; a reply already in progress keeps the setting it started with.
        </p>
      ) : null}
      {current.isError || save.isError ? (
        <p className="chat-run-error" role="alert">
          {(save.error ?? current.error)?.message ?? "Could not load or save the setting"}
        </p>
      ) : null}
    </section>
  );
}
