"use client";

import { useSyncExternalStore } from "react";

// A chat's choice among what the server offers (a model, an agent), kept in this browser
// (localStorage) and read when a run starts; a choice no longer offered is dropped, so the run
// takes the default. Each picker has its own storage key and its own list of what is offered.

export type StoredChoice = {
  /** The id the user picked for the next run, if still offered; undefined for the default. */
  selected(): string | undefined;
  /** What the server offers now (a stored choice outside it is not sent). */
  offer(ids: Iterable<string>): void;
  stored(): string | null;
  choose(id: string | null): void;
  subscribe(listener: () => void): () => void;
};

export function storedChoice(storageKey: string): StoredChoice {
  const listeners = new Set<() => void>();
  let offered: ReadonlySet<string> | null = null;
  const stored = (): string | null => {
    try {
      return window.localStorage.getItem(storageKey);
    } catch {
      return null;
    }
  };
  return {
    stored,
    selected() {
      const id = stored();
      return id && offered?.has(id) ? id : undefined;
    },
    offer(ids) {
      offered = new Set(ids);
    },
    choose(id) {
      try {
        if (id) window.localStorage.setItem(storageKey, id);
        else window.localStorage.removeItem(storageKey);
      } catch {
        // Storage refused (private mode): the choice lasts until the page is left.
      }
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ChoiceOption = { id: string; label: string; default: boolean };

/**
 * A labelled select of the options, shown only when there are two or more; picking the default
 * (the option marked so, else the first) forgets the stored choice.
 */
export function ChoicePicker(props: { choice: StoredChoice; options: ChoiceOption[]; label: string; title: string; testId: string }) {
  const { choice, options } = props;
  const picked = useSyncExternalStore(choice.subscribe, choice.stored, () => null);
  if (options.length < 2) return null;
  const fallback = options.find((o) => o.default) ?? options[0]!;
  const value = picked && options.some((o) => o.id === picked) ? picked : fallback.id;
  return (
    <label className="chat-model-picker" data-testid={props.testId}>
      <span className="sr-only">{props.label}</span>
      <select value={value} title={props.title} onChange={(e) => choice.choose(e.target.value === fallback.id ? null : e.target.value)}>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}
