import "server-only";
import { EventType } from "@ag-ui/core";
import { logger } from "../logger";
import type { AgUiEvent } from "../protocols/ag-ui/events";
import { listen, notify } from "../runs/repository/notifications";
import type { EmitExtras } from "../kernel/runs";
import { findPlatformMessage, type PlatformMessage } from "./repository/platform";

// Platform actions reach whoever follows the thread through the run that asked for them: its
// event log. A host API call may land on any instance, but only the instance executing the run
// can put events in its log, so an action performed elsewhere is handed over with a
// notification naming the message row; the executing instance reads the row and emits it.

const CHANNEL = "dispatch_platform_delivery";

export type PlatformDelivery = { kind: "sent" | "edited"; message: PlatformMessage };

type Emit = (event: AgUiEvent, extras?: EmitExtras) => void;

/** The runs executing on this instance that take platform events, by runs.id. */
const emitters = new Map<string, Emit>();
let listening: Promise<unknown> | null = null;

function eventsOf({ kind, message }: PlatformDelivery): { event: AgUiEvent; extras?: EmitExtras }[] {
  if (kind === "edited") {
    return [{ event: { type: EventType.CUSTOM, name: "message.edited", value: { messageId: message.messageId, content: message.content } } }];
  }
  // The message is in the thread already (the action wrote it): the run's recorder leaves it.
  return [
    { event: { type: EventType.TEXT_MESSAGE_START, messageId: message.messageId, role: "assistant" } },
    { event: { type: EventType.TEXT_MESSAGE_CONTENT, messageId: message.messageId, delta: message.content } },
    { event: { type: EventType.TEXT_MESSAGE_END, messageId: message.messageId }, extras: { storedByHost: true } },
  ];
}

function emitHere(runId: string, delivery: PlatformDelivery): boolean {
  const emit = emitters.get(runId);
  if (!emit) return false;
  for (const { event, extras } of eventsOf(delivery)) emit(event, extras);
  return true;
}

function startListening(): void {
  listening ??= listen(CHANNEL, (payload) => {
    const [runId = "", kind = "", rowId = ""] = payload.split(" ");
    if (!emitters.has(runId) || (kind !== "sent" && kind !== "edited")) return;
    findPlatformMessage({ id: rowId }).then(
      (message) => {
        if (message) emitHere(runId, { kind, message });
      },
      (err: unknown) => logger.warn({ err, runId }, "could not deliver a platform action performed on another instance"),
    );
  }).catch((err: unknown) => {
    listening = null;
    logger.warn({ err }, "could not listen for platform actions performed on other instances");
  });
}

/** While the returned function is not called, platform actions of this run are emitted into it. */
export function attachRunEmitter(runId: string, emit: Emit): () => void {
  startListening();
  emitters.set(runId, emit);
  return () => {
    if (emitters.get(runId) === emit) emitters.delete(runId);
  };
}

/**
 * Streams a performed action to the run's followers: here when the run executes here, else through
 * the instance that executes it. A run that ended meanwhile has no followers left to tell; the
 * thread has the change all the same.
 */
export async function deliverToRun(runId: string, delivery: PlatformDelivery): Promise<void> {
  if (emitHere(runId, delivery)) return;
  await notify(CHANNEL, `${runId} ${delivery.kind} ${delivery.message.id}`);
}
