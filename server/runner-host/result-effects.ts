import "server-only";
import type { RunHandle } from "../kernel/runs";
import { createRunnerArtifact } from "./artifact-store";
import type { EntryEvent } from "./entry-events";
import type { RunAuthorization } from "./policy";
import type { BindingRow } from "./repository/runners";
import type { ResultEffects } from "./result-stream";
import { setState, stateScopeIds } from "./state-store";
import { PlatformActionRefusal, performPlatformAction } from "./platform-actions";

// What the host does for state.updated, artifact.created and action.requested results,
// inside the run's frozen authorization (platform actions: platform-actions.ts).

/** What of the runner's spec the effects need (http-runner.ts has the whole of it). */
type EffectsSpec = { authorization: RunAuthorization; binding: BindingRow | null; entry: EntryEvent };

export function hostEffects({ run, spec }: { run: RunHandle; spec: EffectsSpec }): ResultEffects {
  const auth = spec.authorization;
  return {
    async updateState(d) {
      if (!spec.binding) throw new Error("state needs a binding; this run has none");
      if (!auth.state.scopes.includes(d.scope)) throw new Error(`state scope ${d.scope} is not granted to this binding`);
      const ids = stateScopeIds({ threadId: run.threadId, userId: run.userId, eventId: spec.entry.id, runnerId: auth.runner_id, bindingId: spec.binding.id });
      await setState({ bindingId: spec.binding.id, scope: d.scope, scopeId: ids[d.scope], key: d.key, value: d.value });
    },
    async createArtifact(d) {
      const bytes = d.content_base64 != null ? Buffer.from(d.content_base64, "base64") : Buffer.from(d.text ?? "", "utf8");
      const a = await createRunnerArtifact({
        userId: run.userId,
        threadId: run.threadId,
        runId: run.id,
        runnerId: auth.runner_id,
        name: d.name ?? null,
        mimeType: d.mime_type,
        bytes,
        ttlSeconds: d.expires_in_seconds ?? null,
      });
      return { artifact_id: a.id, mime_type: a.mimeType, size: a.size, name: a.name };
    },
    async requestAction(d) {
      try {
        const result = await performPlatformAction({ runId: run.id, threadId: run.threadId, runnerId: auth.runner_id, grantedActions: auth.platform_api.actions }, d);
        return { executed: result };
      } catch (err) {
        if (err instanceof PlatformActionRefusal) return { refused: { reason: err.reason, message: err.message } };
        throw err;
      }
    },
  };
}
