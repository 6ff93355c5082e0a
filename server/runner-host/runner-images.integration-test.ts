import { randomUUID } from "node:crypto";
import { EventType } from "@ag-ui/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindRunner, registerRunner } from "@/server/runner-host/service";
import { defineRunner } from "@/sdk/runner/define-runner";
import { completed, runCompleted } from "@/sdk/runner/results";
import { startRunners, type StartedRunner } from "@/examples/runners/start";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { pngBytes } from "@/test/images";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse } from "@/test/sse";
import { getPool } from "@/server/db";

// An image or a document in the message of a run bound to an external runner (issue #46): the host
// shares the upload with the run as an artifact and the runner gets it as an attachment of its input.

const RUNNER_ID = "plugin:dispatch-tests/attachment-lister/default";
const lister = defineRunner({
  manifest: { id: RUNNER_ID, name: "default", label: { en_US: "Attachment lister" }, capabilities: { streaming: true }, permissions: {}, context: { bootstrap: "none" } },
  async *run(ctx) {
    yield completed(ctx.input.attachments.map((a) => `${a.mime_type} ${a.size}`).join(", ") || "no attachments");
    yield runCompleted();
  },
});

let runner: StartedRunner;
beforeAll(async () => {
  const secret = `runner-secret-${randomUUID()}`;
  runner = await startRunners({ secret, runners: [lister] });
  await registerRunner({ url: runner.url, secret });
});
afterAll(() => runner.close());

describe("a runner-bound run with an image", () => {
  it("reaches the runner with the image as an attachment, and completes", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const image = pngBytes(46);
    const form = new FormData();
    form.set("file", new Blob([Buffer.from(image)], { type: "image/png" }), "photo.png");
    const uploaded = (await (await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form })).json()) as { url: string };
    const body = runInput({
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "what is this?" }, { type: "binary", mimeType: "image/png", url: uploaded.url }] }],
    });

    const events = (await collectSse(await postRun(user.apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as { type: string; delta?: string });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
    const answer = events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join("");
    expect(answer).toBe(`image/png ${image.byteLength}`);
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("completed");
  });

  it("reaches the runner with a document as an attachment named as it was uploaded", async () => {
    const user = await createTestUser();
    await bindRunner({ runnerId: RUNNER_ID, email: user.email });
    const csv = "region,amount\nnorth,120\n";
    const form = new FormData();
    form.set("file", new Blob([csv], { type: "text/csv" }), "sales.csv");
    const uploaded = (await (await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form })).json()) as { url: string };
    const body = runInput({
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "sum it" }, { type: "document", source: { type: "url", value: uploaded.url, mimeType: "text/csv" } }] }],
    });

    const events = (await collectSse(await postRun(user.apiKey, body, { stream: true }))).map((f) => JSON.parse(f.data) as { type: string; delta?: string });
    const answer = events.filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT).map((e) => e.delta).join("");
    expect(answer).toBe(`text/csv ${csv.length}`);
    const { rows } = await getPool().query<{ name: string }>(`select a.name from artifacts a join runs r on r.id = a.run_id where r.run_id = $1 and r.user_id = $2`, [body.runId, user.id]);
    expect(rows.map((r) => r.name)).toEqual(["sales.csv"]);
  });
});
