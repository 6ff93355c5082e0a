// misbehaving: everything a host must survive, in one run, then a valid ending:
//   1. a line that is not JSON
//   2. a result for another run_id
//   3. the same sequence number twice (the host applies it once)
//   4. an unknown result type (ignored with a warning)
//   5. a line over 1 MB
//   6. state.updated with a scope that does not exist
//   7. valid deltas, message.completed and run.completed
// A host that handles all of it shows MISBEHAVING_EXPECTED_TEXT and nothing else.
import { MAX_RESULT_BYTES } from "../../server/protocols/runner/result";
import { defineRunner } from "../../sdk/runner/define-runner";
import { completed, delta, rawLine, runCompleted, stateUpdated, type ResultDraft } from "../../sdk/runner/results";
import type { StateScope } from "../../sdk/runner/types";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const MISBEHAVING_RUNNER_ID = "plugin:dispatch-examples/misbehaving/default";
/** The answer once the bad lines are dropped and the duplicate is applied once. */
export const MISBEHAVING_EXPECTED_TEXT = "once, then valid deltas";
/** Texts that must never reach the conversation. */
export const MISBEHAVING_REJECTED_TEXTS = ["OTHER-RUN", "UNKNOWN-TYPE", "OVERSIZE"] as const;
/** The key of the state.updated with an invalid scope: the host must not store it. */
export const MISBEHAVING_STATE_KEY = "misbehaving.scope";
export const MISBEHAVING_UNKNOWN_TYPE = "message.sparkle";

export const misbehavingRunner = defineRunner({
  manifest: {
    id: MISBEHAVING_RUNNER_ID,
    name: "default",
    label: { en_US: "Misbehaving" },
    description: { en_US: "Sends malformed, foreign, duplicate, unknown and oversize results before a valid answer." },
    capabilities: { streaming: true },
    permissions: {},
    context: {},
  },
  async *run() {
    yield rawLine("{this is not json");
    yield { ...delta("OTHER-RUN "), run_id: "00000000-0000-4000-8000-000000000000" };
    const once: ResultDraft = { ...delta("once, "), sequence: 1 };
    yield once;
    yield once;
    yield { type: MISBEHAVING_UNKNOWN_TYPE, data: { text: "UNKNOWN-TYPE" } };
    const padding = "x".repeat(MAX_RESULT_BYTES);
    yield delta(`OVERSIZE ${padding}`);
    yield stateUpdated("galaxy" as StateScope, MISBEHAVING_STATE_KEY, "should not be stored");
    yield delta("then ");
    yield delta("valid ");
    yield delta("deltas");
    yield completed(MISBEHAVING_EXPECTED_TEXT);
    yield runCompleted({ finish_reason: "stop" });
  },
});

export const startMisbehavingRunner = (opts: StartOptions) => startRunners({ ...opts, runners: [misbehavingRunner] });

runIfMain(import.meta.url, startMisbehavingRunner);
