import "server-only";
import type { StateScope } from "../../../protocols/runner/context";
import { deleteState, getState, serializeStateValue, setState, stateScopeIds } from "../../state-store";
import type { JsonHandler } from "../call";
import { HostApiFailure } from "../failure";
import type { RunSession } from "../session";

// state/*: small JSON values of this run's binding, keyed per scope by the id the scope
// means for this run (the conversation is the thread, the actor the user, the subject the
// entry event, the runner its manifest id, the binding itself).

function location(session: RunSession, scope: StateScope, key: string) {
  const bindingId = session.bindingId;
  // checkOperation refuses state calls of runs without a binding; this keeps the type honest.
  if (bindingId === null) throw new HostApiFailure("unauthorized", "State needs a binding; this run has none");
  const ids = stateScopeIds({
    threadId: session.threadId,
    userId: session.userId,
    eventId: session.eventId ?? session.authorization.event_id,
    runnerId: session.runnerId,
    bindingId,
  });
  return { bindingId, scope, scopeId: ids[scope], key };
}

export const getStateValue: JsonHandler<"state/get"> = async ({ params, session }) => {
  const found = await getState(location(session, params.scope, params.key));
  return { scope: params.scope, key: params.key, found: found.exists, value: found.value };
};

export const setStateValue: JsonHandler<"state/set"> = async ({ params, session }) => {
  const size = Buffer.byteLength(serializeStateValue(params.value), "utf8");
  await setState({ ...location(session, params.scope, params.key), value: params.value });
  return { scope: params.scope, key: params.key, size };
};

export const deleteStateValue: JsonHandler<"state/delete"> = async ({ params, session }) => {
  const deleted = await deleteState(location(session, params.scope, params.key));
  return { scope: params.scope, key: params.key, deleted };
};
