// cancellable: waits for the host's cancel, then answers run.failed {code: "cancelled"} if the
// connection can still carry it. Tests read `cancels` to see that the cancel reached it.
import { defineRunner } from "../../sdk/runner/define-runner";
import { delta, runFailed } from "../../sdk/runner/results";
import { AbortProbe, untilAborted } from "./abort-probe";
import { runIfMain, startRunners, type StartOptions } from "./start";

export const CANCELLABLE_RUNNER_ID = "plugin:dispatch-examples/cancellable/default";

export function createCancellableRunner(cancels: AbortProbe) {
  return defineRunner({
    manifest: {
      id: CANCELLABLE_RUNNER_ID,
      name: "default",
      label: { en_US: "Cancellable" },
      description: { en_US: "Waits until it is cancelled." },
      capabilities: { streaming: true, interrupt: true },
      permissions: {},
      context: {},
    },
    async *run(_ctx, { signal }) {
      yield delta("Waiting for cancel");
      await untilAborted(signal);
      cancels.record();
      yield runFailed("cancelled", "Cancelled by the host");
    },
  });
}

export async function startCancellableRunner(opts: StartOptions) {
  const cancels = new AbortProbe();
  const started = await startRunners({ ...opts, runners: [createCancellableRunner(cancels)] });
  return { ...started, cancels };
}

runIfMain(import.meta.url, startCancellableRunner);
