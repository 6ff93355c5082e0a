// The SDK's worker runner end to end: an AG-UI run on the production server reaches the
// worker over loopback, the worker calls back the host API (state, project_cli, model
// stream) with its secret, and the answer lands in the stream, history and the audit.
import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { baseUrl, createTestUser } from "@/test/helpers";
import { getJson, postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { WORKER_RUNNER_ID, WORKER_TURNS_KEY, startWorkerRunner } from "./worker";
import type { StartedRunner } from "./start";

type Frame = { type: string } & Record<string, unknown>;

let worker: StartedRunner;
beforeAll(async () => {
  const secret = `worker-secret-${randomUUID()}`;
  worker = await startWorkerRunner({ secret, hostUrl: baseUrl() });
  const outcome = await registerRunner({ url: worker.url, secret });
  expect(outcome.runnerIds).toEqual([WORKER_RUNNER_ID]);
});
afterAll(async () => {
  await worker?.close();
});

async function run(apiKey: string, body: ReturnType<typeof runInput>) {
  const res = await postRun(apiKey, body, { stream: true });
  expect(res.status).toBe(200);
  const frames = (await collectSse(res)).map((f) => JSON.parse(f.data) as Frame);
  const text = frames.filter((f) => f.type === EventType.TEXT_MESSAGE_CONTENT).map((f) => f.delta).join("");
  return { frames, text };
}

describe("worker runner through the host API", () => {
  it("creates an event with project_cli, answers with the model, counts turns in conversation state, and is audited", async () => {
    const user = await createTestUser();
    // An automation runner: its binding runs writes without asking a person (docs/approvals.md).
    await bindRunner({ runnerId: WORKER_RUNNER_ID, email: user.email, autoApprove: true });
    const threadId = randomUUID();

    const first = await run(user.apiKey, runInput({ threadId }, 'Please create "Dentist visit" at 2031-03-04T09:00:00Z for 45 minutes'));
    expect(first.frames.at(-1)!.type).toBe(EventType.RUN_FINISHED);
    expect(first.frames.map((f) => f.type)).toEqual(expect.arrayContaining([EventType.TOOL_CALL_START, EventType.TOOL_CALL_RESULT]));
    // The fake model answers "Tool said: <the tool's text>", so the answer proves the model saw project_cli's result.
    expect(first.text).toMatch(/^Tool said: .*Dentist visit/s);
    expect(first.text).toContain("(turn 1 in this conversation)");
    const { rows: events } = await getPool().query(`select title from calendar_events where owner_id = $1`, [user.id]);
    expect(events).toEqual([{ title: "Dentist visit" }]);

    const second = await run(user.apiKey, runInput({ threadId }, "What is on 2031-03-04?"));
    expect(second.text).toContain("Dentist visit");
    expect(second.text).toContain("(turn 2 in this conversation)");

    const { rows: state } = await getPool().query(`select scope, scope_id, value from runner_state where key = $1 and scope_id = $2`, [WORKER_TURNS_KEY, threadId]);
    expect(state).toEqual([{ scope: "conversation", scope_id: threadId, value: 2 }]);

    const history = JSON.stringify(await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${threadId}`)).json());
    expect(history).toContain("turn 2 in this conversation");

    const body = runInput({ threadId }, "one more");
    await run(user.apiKey, body);
    const { rows: calls } = await getPool().query(
      `select c.action, c.result from runner_api_calls c join runs r on r.id = c.run_id where r.run_id = $1 order by c.id`,
      [body.runId],
    );
    expect(calls).toEqual([
      { action: "state/get", result: "ok" },
      { action: "tools/call", result: "ok" },
      { action: "models/stream", result: "ok" },
      { action: "state/set", result: "ok" },
    ]);
  });

  it("fails the run with the host's refusal when the binding grants no state scope", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: WORKER_RUNNER_ID, email: user.email, policy: { state: { scopes: [] } } });
    const { frames } = await run(user.apiKey, runInput({}, "What is on 2031-03-04?"));
    const error = frames.find((f) => f.type === EventType.RUN_ERROR);
    expect(error?.message).toMatch(/state|scope/i);
  });
});
