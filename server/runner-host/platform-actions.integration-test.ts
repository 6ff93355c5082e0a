import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { baseUrl, createTestUser } from "@/test/helpers";
import { getJson, postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { defineRunner } from "@/sdk/runner/define-runner";
import { messageEdited, sendMessage } from "@/sdk/runner/platform";
import { actionRequested, completed, runCompleted } from "@/sdk/runner/results";
import { doneNote, PROGRESS_NOTES_RUNNER_ID, progressNote, startProgressNotesRunner } from "@/sdk/runner/examples/progress-notes";
import { startRunners } from "@/examples/runners/start";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { permissionsSchema } from "@/server/protocols/runner/manifest";
import { callHost, createBinding, createEndpoint, FULL_PERMISSIONS, startRunSession, type RunSessionFixture, type TestEndpoint } from "./api/test-fixtures";

// Platform actions with the web chat as the platform, over real HTTP against the production
// server: runners send and edit messages through platform/request_action and action.requested,
// followers of the run see them live, /history keeps them, and every refusal writes nothing.

type Frame = { type: string } & Record<string, unknown>;
const started: { close(): Promise<void> }[] = [];
const BOTH = ["message.send", "message.edit"];

// Runners that post a note, then wait for the test (a follower must see the note while the run still runs).
let release: () => void = () => {};
const gate = () => new Promise<void>((r) => (release = r));
const gatedNote = (id: string, note: string) =>
  defineRunner({
    manifest: {
      id,
      name: "default",
      label: { en_US: "Gated note" },
      capabilities: { platform_api: true },
      permissions: { platform_api: ["message.send"] },
      context: { bootstrap: "none" },
    },
    async *run(_ctx, { host }) {
      const opened = gate();
      await sendMessage(host, note);
      await opened;
      yield completed("found it");
      yield runCompleted();
    },
  });
const GATED_ID = "plugin:dispatch-tests/gated-note/default";
const gated = gatedNote(GATED_ID, "Still looking, one moment");
// Its host calls go to a second server instance, which does not execute its runs.
const RELAYED_ID = "plugin:dispatch-tests/relayed-note/default";
const relayed = gatedNote(RELAYED_ID, "Sent through the other instance");

// A runner whose requested actions are all refused: another author's message, an action it was not granted.
const REFUSED_ID = "plugin:dispatch-tests/refused-actions/default";
const refusing = defineRunner({
  manifest: {
    id: REFUSED_ID,
    name: "default",
    label: { en_US: "Refused actions" },
    capabilities: { platform_api: true },
    permissions: { platform_api: ["message.edit", "reaction.add"] },
    context: { bootstrap: "none" },
  },
  async *run(ctx) {
    yield messageEdited(ctx.subject?.subject_id ?? "", "not yours to change");
    yield actionRequested("message.send", {}, { text: "not granted" });
    yield completed("done");
    yield runCompleted();
  },
});

async function userBoundTo(runnerId: string, actions: string[]) {
  const user = await createTestUser();
  await bindRunner({ runnerId, email: user.email, policy: { platform_api: { actions } } });
  return user;
}

async function threadRows(threadId: string) {
  const { rows } = await getPool().query<{ role: string; message_id: string; content: string; metadata: Record<string, unknown> }>(
    `select role, message_id, content, metadata from messages where thread_id = $1 order by seq`,
    [threadId],
  );
  return rows;
}

async function resultLog(clientRunId: string) {
  const { rows } = await getPool().query<{ type: string; disposition: string; detail: string | null; data: Record<string, unknown> }>(
    `select r.type, r.disposition, r.detail, r.data from runner_results r join runs on runs.id = r.run_id where runs.run_id = $1 order by r.idx`,
    [clientRunId],
  );
  return rows;
}

let other: ExtraServer | undefined;
beforeAll(async () => {
  other = await startExtraServer();
  const relaySecret = `runner-secret-${randomUUID()}`;
  const relay = await startRunners({ secret: relaySecret, hostUrl: other.url, runners: [relayed] });
  started.push(relay);
  await registerRunner({ url: relay.url, secret: relaySecret });
  const secret = `runner-secret-${randomUUID()}`;
  const notes = await startProgressNotesRunner({ secret, hostUrl: baseUrl() });
  started.push(notes);
  await registerRunner({ url: notes.url, secret });
  const testSecret = `runner-secret-${randomUUID()}`;
  const tests = await startRunners({ secret: testSecret, hostUrl: baseUrl(), runners: [gated, refusing] });
  started.push(tests);
  await registerRunner({ url: tests.url, secret: testSecret });
}, 90_000);

afterAll(async () => {
  other?.child.kill("SIGTERM");
  await Promise.all(started.map((s) => s.close()));
});

describe("a runner's messages in the web chat", () => {
  it("sends a note through the host API, edits it with a result, and the stream and /history both show it", async () => {
    const user = await userBoundTo(PROGRESS_NOTES_RUNNER_ID, BOTH);
    const body = runInput({}, "book the team offsite");
    const res = await postRun(user.apiKey, body, { stream: true });
    expect(res.status).toBe(200);
    const frames = (await collectSse(res)).map((f) => JSON.parse(f.data) as Frame);
    expect(frames.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });

    const noteStart = frames.find((f) => f.type === EventType.TEXT_MESSAGE_CONTENT && f.delta === progressNote("book the team offsite"));
    expect(noteStart).toBeDefined();
    const noteId = noteStart!.messageId as string;
    expect(frames).toContainEqual(expect.objectContaining({ type: EventType.CUSTOM, name: "message.edited", value: { messageId: noteId, content: doneNote("book the team offsite") } }));

    const rows = await threadRows(body.threadId);
    expect(rows.map((r) => r.role)).toEqual(["user", "assistant", "assistant"]);
    const note = rows.filter((r) => r.message_id === noteId);
    expect(note).toHaveLength(1);
    expect(note[0]).toMatchObject({ content: doneNote("book the team offsite"), metadata: { platform_action: "message.send", runner_id: PROGRESS_NOTES_RUNNER_ID, run_id: body.runId } });
    expect(note[0]!.metadata.edited_at).toEqual(expect.any(String));

    const history = (await (await getJson(user.apiKey, `/api/v1/agent/history?threadId=${body.threadId}`)).json()) as { messages: { id: string; content: string }[] };
    expect(history.messages.find((m) => m.id === noteId)?.content).toBe(doneNote("book the team offsite"));
    expect((await resultLog(body.runId)).filter((r) => r.type === "action.executed")).toEqual([
      expect.objectContaining({ disposition: "host", data: expect.objectContaining({ action: "message.edit", message_id: noteId, conversation_id: body.threadId }) }),
    ]);
  });

  /** Follows the run from the start; answers whether the note came while the run was still running. */
  async function followUntilNote(apiKey: string, runId: string, note: string) {
    const follow = await getJson(apiKey, `/api/v1/agent/runs/${runId}/events`);
    let statusWhenSeen: string | null = null;
    const seen: Frame[] = [];
    for await (const frame of readSse(follow)) {
      const event = JSON.parse(frame.data) as Frame;
      seen.push(event);
      if (event.type === EventType.TEXT_MESSAGE_CONTENT && event.delta === note) {
        const { rows } = await getPool().query<{ status: string }>(`select status from runs where run_id = $1`, [runId]);
        statusWhenSeen = rows[0]!.status;
        release();
      }
    }
    return { statusWhenSeen, last: seen.at(-1) };
  }

  it("streams a sent message live to a follower of the run, before the run ends", async () => {
    const user = await userBoundTo(GATED_ID, ["message.send"]);
    const body = runInput({}, "find the invoice");
    expect((await postRun(user.apiKey, body)).status).toBe(202);
    expect(await followUntilNote(user.apiKey, body.runId, "Still looking, one moment")).toMatchObject({ statusWhenSeen: "running", last: { type: EventType.RUN_FINISHED } });
    expect((await threadRows(body.threadId)).map((r) => r.content)).toEqual(["find the invoice", "Still looking, one moment", "found it"]);
  });

  it("streams a message sent through another instance into the run, by the instance executing it", async () => {
    const user = await userBoundTo(RELAYED_ID, ["message.send"]);
    const body = runInput({}, "ask the other server");
    expect((await postRun(user.apiKey, body)).status).toBe(202);
    expect(await followUntilNote(user.apiKey, body.runId, "Sent through the other instance")).toMatchObject({ statusWhenSeen: "running", last: { type: EventType.RUN_FINISHED } });
    expect((await threadRows(body.threadId)).map((r) => r.content)).toEqual(["ask the other server", "Sent through the other instance", "found it"]);
    const { rows } = await getPool().query<{ action: string; result: string }>(
      `select c.action, c.result from runner_api_calls c join runs r on r.id = c.run_id where r.run_id = $1`,
      [body.runId],
    );
    expect(rows).toEqual([{ action: "platform/request_action", result: "ok" }]);
  });

  it("records the refused action.requested results and changes nothing", async () => {
    const user = await userBoundTo(REFUSED_ID, ["message.edit", "reaction.add"]);
    const body = runInput({}, "leave my message alone");
    expect((await postRun(user.apiKey, body)).status).toBe(202);
    expect(await waitForRunEnd(user.apiKey, body.runId)).toMatchObject({ status: "completed" });
    expect((await threadRows(body.threadId)).map((r) => [r.role, r.content])).toEqual([
      ["user", "leave my message alone"],
      ["assistant", "done"],
    ]);
    const log = await resultLog(body.runId);
    expect(log.filter((r) => r.type === "action.requested").map((r) => r.disposition)).toEqual(["rejected", "rejected"]);
    expect(log.filter((r) => r.type === "action.refused").map((r) => r.data.reason)).toEqual(["not_own_message", "not_granted"]);
  });
});

describe("platform/request_action refusals", () => {
  let user: Awaited<ReturnType<typeof createTestUser>>;
  let endpoint: TestEndpoint;
  const perms = (actions: string[]) => permissionsSchema.parse({ ...FULL_PERMISSIONS, platform_api: actions });

  beforeAll(async () => {
    user = await createTestUser();
    endpoint = await createEndpoint();
  });

  async function request(run: RunSessionFixture, action: string, target: Record<string, unknown>, payload: Record<string, unknown>) {
    const answer = await callHost(endpoint.secret, "platform/request_action", { run_id: run.id, action, target, payload });
    return { status: answer.status, ...answer.body };
  }

  const send = (run: RunSessionFixture, text: string, target: Record<string, unknown> = {}) => request(run, "message.send", target, { text });
  const edit = (run: RunSessionFixture, messageId: string, text: string) => request(run, "message.edit", { message_id: messageId }, { text });

  it("refuses what the manifest, the binding policy or the run's frozen grant leave out, writing nothing", async () => {
    const noManifest = await startRunSession({ userId: user.id, endpoint, permissions: perms(["message.edit"]), policy: { platform_api: { actions: BOTH } } });
    const narrow = { platform_api: { actions: ["message.edit"] } };
    const bindingId = await createBinding({ endpoint, userId: user.id, policy: narrow });
    const noPolicy = await startRunSession({ userId: user.id, endpoint, bindingId, permissions: perms(BOTH), policy: narrow });
    const unsupported = await startRunSession({ userId: user.id, endpoint, permissions: perms(["reaction.add"]), policy: { platform_api: { actions: ["reaction.add"] } } });
    for (const run of [noManifest, noPolicy]) {
      expect(await send(run, "hello")).toMatchObject({ status: 403, ok: false, error: { code: "unauthorized", details: { reason: "not_granted" } } });
      expect((await threadRows(run.threadId)).map((r) => r.role)).toEqual(["user"]);
    }
    expect(await request(unsupported, "reaction.add", {}, {})).toMatchObject({ status: 501, error: { code: "runtime_error", details: { reason: "unsupported" } } });
    // The run's grant was frozen when it started: a policy widened afterwards does not reach it.
    await getPool().query(`update agent_bindings set policy = $2 where id = $1`, [bindingId, JSON.stringify({ platform_api: { actions: BOTH } })]);
    expect(await send(noPolicy, "hello")).toMatchObject({ status: 403, error: { details: { reason: "not_granted" } } });
  });

  it("sends and edits in the run's own conversation only, and only the runner's own messages", async () => {
    const run = await startRunSession({ userId: user.id, endpoint, permissions: perms(BOTH), policy: { platform_api: { actions: BOTH } }, text: "draft the agenda" });
    const other = await startRunSession({ userId: user.id, endpoint, permissions: perms(BOTH), policy: { platform_api: { actions: BOTH } } });

    const sent = await send(run, "Agenda: 1. budget");
    expect(sent).toMatchObject({ status: 200, ok: true, data: { status: "executed", result: { conversation_id: run.threadId } } });
    const noteId = (sent as { data: { result: { message_id: string } } }).data.result.message_id;
    expect(await edit(run, noteId, "Agenda: 1. budget 2. venue")).toMatchObject({ status: 200, data: { result: { message_id: noteId } } });
    const otherNote = (await send(other, "elsewhere")) as { data: { result: { message_id: string } } };
    const before = await threadRows(run.threadId);
    expect(before.map((r) => r.content)).toEqual(["draft the agenda", "Agenda: 1. budget 2. venue"]);

    expect(await send(run, "hi", { conversation_id: other.threadId })).toMatchObject({ status: 403, error: { details: { reason: "another_conversation" } } });
    expect(await edit(run, otherNote.data.result.message_id, "hijacked")).toMatchObject({ status: 404, error: { code: "not_found", details: { reason: "message_not_found" } } });
    expect(await edit(run, before[0]!.message_id, "hijacked")).toMatchObject({ status: 403, error: { details: { reason: "not_own_message" } } });
    expect(await edit(run, noteId, "")).toMatchObject({ status: 400, error: { code: "invalid_argument", details: { reason: "invalid_payload" } } });

    expect(await threadRows(run.threadId)).toEqual(before);
    expect((await threadRows(other.threadId)).map((r) => r.content)).toEqual([expect.any(String), "elsewhere"]);
  });
});
