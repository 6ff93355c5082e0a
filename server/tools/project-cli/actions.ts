import "server-only";
import type { z } from "zod";
import type { ToolContext } from "./context";
import { readCalendar } from "./modules/calendar/read";
import { acceptCalendarInvite, rejectCalendarInvite, shareCalendarEvent } from "./modules/calendar/invites";
import {
  calendarCreateInput,
  calendarDeleteInput,
  calendarInviteAnswerInput,
  calendarReadInput,
  calendarShareInput,
  calendarUpdateInput,
} from "./modules/calendar/schemas";
import { createCalendarEvent, deleteCalendarEvent, updateCalendarEvent } from "./modules/calendar/write";
import { readContacts } from "./modules/contacts/read";
import { contactsReadInput } from "./modules/contacts/schemas";
import { readMemory, updateMemory } from "./modules/memory/handlers";
import { memoryReadInput, memoryUpdateInput } from "./modules/memory/schemas";

// The whitelist: every (module, method) project_cli can run, its strict input schema and
// its handler. Nothing else is reachable, whatever the model asks for.

export type ActionHandler = (ctx: ToolContext, input: unknown) => Promise<unknown>;

export type ActionDefinition = {
  module: string;
  method: string;
  /** The strict input schema, built on first use. */
  readonly input: z.ZodType;
  handler: ActionHandler;
};

function action<S extends z.ZodType>(
  module: string,
  method: string,
  input: () => S,
  handler: (ctx: ToolContext, input: z.output<S>) => Promise<unknown>,
): ActionDefinition {
  let schema: S | undefined;
  return {
    module,
    method,
    get input() {
      return (schema ??= input());
    },
    // Sound because the router only calls a handler with its own schema's output.
    handler: handler as ActionHandler,
  };
}

export const PROJECT_CLI_ACTIONS: readonly ActionDefinition[] = [
  action("calendar", "read", calendarReadInput, readCalendar),
  action("calendar", "create", calendarCreateInput, createCalendarEvent),
  action("calendar", "update", calendarUpdateInput, updateCalendarEvent),
  action("calendar", "delete", calendarDeleteInput, deleteCalendarEvent),
  action("calendar", "share", calendarShareInput, shareCalendarEvent),
  action(
    "calendar",
    "accept_invite",
    () => calendarInviteAnswerInput().describe("Accept an invitation the user received, by invitation or event id"),
    acceptCalendarInvite,
  ),
  action(
    "calendar",
    "reject_invite",
    () => calendarInviteAnswerInput().describe("Decline an invitation the user received, by invitation or event id"),
    rejectCalendarInvite,
  ),
  action("contacts", "read", contactsReadInput, readContacts),
  action("memory", "read", memoryReadInput, readMemory),
  action("memory", "update", memoryUpdateInput, updateMemory),
];

export const PROJECT_CLI_MODULES: readonly string[] = [...new Set(PROJECT_CLI_ACTIONS.map((a) => a.module))];
