// hanging: sends one delta, then never finishes until the host closes the connection (past
// the run's deadline, or on cancel). Tests read `aborts` to see that the abort reached it.
import { defineRunner } from "../../sdk/runner/define-runner";
import { delta } from "../../sdk/runner/results";
import { AbortProbe, untilAborted } from "./abort-probe";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const HANGING_RUNNER_ID = "plugin:dispatch-examples/hanging/default";

export function createHangingRunner(aborts: AbortProbe) {
  return defineRunner({
    manifest: {
      id: HANGING_RUNNER_ID,
      name: "default",
      label: { en_US: "Hanging" },
      description: { en_US: "Starts answering, then never finishes." },
      capabilities: { streaming: true, interrupt: true },
      permissions: {},
      context: {},
    },
    async *run(_ctx, { signal }) {
      yield delta("Working on it");
      await untilAborted(signal);
      aborts.record();
    },
  });
}

export async function startHangingRunner(opts: StartOptions) {
  const aborts = new AbortProbe();
  const started = await startRunners({ ...opts, runners: [createHangingRunner(aborts)] });
  return { ...started, aborts };
}

runIfMain(import.meta.url, startHangingRunner);
