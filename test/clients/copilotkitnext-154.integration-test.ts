// The CopilotKit v2 packages @copilotkitnext/runtime + core 1.54.1 (@ag-ui/client 0.0.48), against
// Dispatch's POST /api/v1/ag-ui. The project lives in ./copilotkitnext-154 (npm ci there).
import { describeCopilotKit } from "./copilotkit-suite";
import { wiring } from "./copilotkitnext-154/kit";

describeCopilotKit("@copilotkitnext 1.54.1 + @ag-ui/client 0.0.48", wiring, {
  // @ag-ui/client 0.0.48's message schema has no `metadata`: the tool message loses the card, which
  // reaches the app only on the TOOL_CALL_RESULT event (a subscriber's onToolCallResultEvent).
  card: "tool-result-event",
  // On stop, the runtime's HttpAgent (0.0.48) turns its aborted request into a synthetic RUN_ERROR
  // ("This operation was aborted"), then the runtime's InMemoryAgentRunner closes the open text
  // message after it, which the core's verifier rejects. Client-side only: Dispatch's run is
  // cancelled and the next message goes through, which the test still requires.
  stopError: /This operation was aborted|Cannot send event type 'TEXT_MESSAGE_END': The run has already errored with 'RUN_ERROR'/,
  // @ag-ui/client 0.0.48's ESM build does `import * as a from "fast-json-patch"`: in Node that CJS
  // package's namespace has no applyPatch ("a.applyPatch is not a function"), so the client drops
  // every STATE_DELTA with a warning (bundlers read the package's ESM entry and do not have this).
  // The state it sends still reaches the model.
  appliesDeltasInNode: "no",
});
