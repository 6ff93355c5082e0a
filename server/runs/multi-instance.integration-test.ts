import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExtraServer, type ExtraServer } from "@/test/extra-server";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { postRun, runInput, waitForRunEnd } from "@/test/runs";
import { collectSse, readSse } from "@/test/sse";
import { pngBytes } from "@/test/images";

// A second production server on the same database: clients may follow and cancel a run
// from any instance, not only the one executing it. It runs without PUBLIC_URL, so it also shows
// which origin signed URLs take when a client reaches the app under different names.
let other: ExtraServer | undefined;
let otherUrl = "";
let user: Awaited<ReturnType<typeof createTestUser>>;

beforeAll(async () => {
  baseUrl(); // needs a production build
  user = await createTestUser();
  other = await startExtraServer();
  otherUrl = other.url;
}, 90_000);

afterAll(() => {
  other?.child.kill("SIGTERM");
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(" ");

describe("runs across server instances", () => {
  it("streams a run live from an instance that does not execute it", async () => {
    const body = runInput({}, `[[delay:30]] ${words(20)}`);
    expect((await postRun(user.apiKey, body)).status).toBe(202);
    const elsewhere = await collectSse(await fetch(`${otherUrl}/api/v1/agent/runs/${body.runId}/events`, { headers: bearer(user.apiKey) }));
    const here = await collectSse(await fetch(`${baseUrl()}/api/v1/agent/runs/${body.runId}/events`, { headers: bearer(user.apiKey) }));
    expect(elsewhere).toEqual(here);
    expect(JSON.parse(elsewhere.at(-1)!.data)).toMatchObject({ type: "RUN_FINISHED" });
  });

  it("cancels a run from another instance", async () => {
    const body = runInput({}, `[[delay:200]] ${words(30)}`);
    const stream = readSse(await postRun(user.apiKey, body, { stream: true }));
    for await (const f of stream) if (JSON.parse(f.data).type === "TEXT_MESSAGE_CONTENT") break;
    const res = await fetch(`${otherUrl}/api/v1/agent/runs/${body.runId}/cancel`, { method: "POST", headers: bearer(user.apiKey) });
    expect(res.status).toBe(202);
    expect((await waitForRunEnd(user.apiKey, body.runId)).status).toBe("cancelled");
  });
});

describe("signed URLs without PUBLIC_URL", () => {
  async function upload(origin: string): Promise<{ url: string }> {
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(pngBytes(7))], { type: "image/png" }), "image.png");
    const res = await fetch(`${origin}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form });
    expect(res.status).toBe(201);
    return (await res.json()) as { url: string };
  }

  it("use the origin the client reached, on both HTTP paths, and any of the app's names is accepted in a run", async () => {
    const port = new URL(otherUrl).port;
    const viaLocalhost = await upload(`http://localhost:${port}`);
    const viaLoopback = await upload(`http://127.0.0.1:${port}`);
    expect(new URL(viaLocalhost.url).origin).toBe(`http://localhost:${port}`);
    expect(new URL(viaLoopback.url).origin).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(viaLocalhost.url)).status).toBe(200);

    // A run through the node routes (API key) at 127.0.0.1 with the URL signed under localhost.
    const input = runInput({
      messages: [{ id: "m1", role: "user", content: [{ type: "text", text: "look" }, { type: "binary", mimeType: "image/png", url: viaLocalhost.url }] }],
    });
    const res = await fetch(`${otherUrl}/api/v1/agent/runs`, { method: "POST", headers: { ...bearer(user.apiKey), "content-type": "application/json" }, body: JSON.stringify(input) });
    expect(res.status).toBe(202);
    // A proxy's forwarded host is ignored unless the operator trusts it.
    const forged = await fetch(`${otherUrl}/api/v1/agent/attachments/presign`, {
      method: "POST",
      headers: { ...bearer(user.apiKey), "content-type": "application/json", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
      body: JSON.stringify({ mime_type: "image/png", size: 10 }),
    });
    expect(new URL(((await forged.json()) as { url: string }).url).origin).toBe(otherUrl);
  });
});
