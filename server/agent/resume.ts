import "server-only";
import { EventType } from "@ag-ui/core";
import type { RunnerInput } from "../kernel/runs";
import { parseArgs } from "./conversation";

// An execution that takes a run over goes on from the run's log (RunnerInput.resume): the calls
// the earlier execution streamed to the end but never answered are repeated with the same id
// (project_cli writes are idempotent by it), those cut off mid-arguments are answered as not run.

type Resume = NonNullable<RunnerInput["resume"]>;

export type UnansweredCall = { toolCallId: string; toolName: string; args: unknown; parentMessageId: string | null; interrupted: boolean };

/** The run's calls without a result, in the order they started. */
export function unansweredCalls(resume: Resume): UnansweredCall[] {
  const started = startedCalls(resume);
  const interrupted = new Set(resume.interruptedToolCalls);
  return resume.unansweredToolCalls.flatMap((toolCallId) => {
    const call = started.get(toolCallId);
    if (!call) return [];
    return [{ toolCallId, toolName: call.toolName, args: parseArgs(call.args), parentMessageId: call.parentMessageId, interrupted: interrupted.has(toolCallId) }];
  });
}

/** Every tool call id the run used so far: a repeated step's new calls must not reuse one. */
export function usedToolCallIds(resume: Resume): string[] {
  return resume.events.flatMap((e) => (e.type === EventType.TOOL_CALL_START ? [e.toolCallId] : []));
}

/** Results the run streamed, by call (a call answered before the takeover is not repeated). */
export function answeredToolCallIds(resume: Resume): Set<string> {
  return new Set(resume.events.flatMap((e) => (e.type === EventType.TOOL_CALL_RESULT ? [e.toolCallId] : [])));
}

/**
 * The STATE_DELTA an update_state call streamed before the run was taken over, if the log holds
 * one: it follows the call's TOOL_CALL_END, before the next call or message starts. Its patch is
 * already in the state this execution starts from, so the call is answered as done, not repeated.
 */
export function deltaOfStateCall(resume: Resume, toolCallId: string): unknown[] | null {
  const end = resume.events.findIndex((e) => e.type === EventType.TOOL_CALL_END && e.toolCallId === toolCallId);
  if (end < 0) return null;
  for (const event of resume.events.slice(end + 1)) {
    if (event.type === EventType.STATE_DELTA) return event.delta as unknown[];
    if (event.type === EventType.TOOL_CALL_START || event.type === EventType.TOOL_CALL_RESULT || event.type === EventType.TEXT_MESSAGE_START) return null;
  }
  return null;
}

/**
 * Calls the run's log answered whose tool messages the thread does not hold yet (the earlier
 * execution stopped between the two writes): the model sees them as the log has them, so it
 * neither repeats nor forgets a step it took.
 */
export function loggedExchanges(resume: Resume, recorded: ReadonlySet<string>): { toolCallId: string; toolName: string; args: unknown; content: string }[] {
  const calls = startedCalls(resume);
  return resume.events.flatMap((e) => {
    if (e.type !== EventType.TOOL_CALL_RESULT || recorded.has(e.toolCallId)) return [];
    const call = calls.get(e.toolCallId);
    return call ? [{ toolCallId: e.toolCallId, toolName: call.toolName, args: parseArgs(call.args), content: String(e.content) }] : [];
  });
}

/** Every call the log started, by id: its tool, its streamed arguments and its parent message. */
function startedCalls(resume: Resume): Map<string, { toolName: string; args: string; parentMessageId: string | null }> {
  const started = new Map<string, { toolName: string; args: string; parentMessageId: string | null }>();
  for (const event of resume.events) {
    if (event.type === EventType.TOOL_CALL_START) started.set(event.toolCallId, { toolName: event.toolCallName, args: "", parentMessageId: event.parentMessageId ?? null });
    else if (event.type === EventType.TOOL_CALL_ARGS) {
      const call = started.get(event.toolCallId);
      if (call) call.args += event.delta;
    }
  }
  return started;
}
