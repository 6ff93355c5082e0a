import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { pngBytes } from "@/test/images";

// The Agent API starts runs through the same service as the AG-UI endpoint, so an
// ImageContent.image_url gets the same signed-URL rules.
async function upload(key: string): Promise<string> {
  const form = new FormData();
  form.set("file", new Blob([Buffer.from(pngBytes(3))], { type: "image/png" }), "p.png");
  const res = await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(key), body: form });
  return ((await res.json()) as { url: string }).url;
}

function process(key: string, sessionId: string, imageUrl: string): Promise<Response> {
  return fetch(`${baseUrl()}/api/v1/agent/process`, {
    method: "POST",
    headers: { ...bearer(key), "content-type": "application/json" },
    body: JSON.stringify({
      stream: false,
      session_id: sessionId,
      input: [{ role: "user", type: "message", content: [{ type: "text", text: "look" }, { type: "image", image_url: imageUrl }] }],
    }),
  });
}

async function messagesOf(threadId: string) {
  const { rows } = await getPool().query("select role, metadata from messages where thread_id = $1 order by seq", [threadId]);
  return rows as { role: string; metadata: Record<string, unknown> }[];
}

describe("POST /api/v1/agent/process with images", () => {
  it("refuses a tampered or someone else's image URL and writes nothing", async () => {
    const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
    const url = new URL(await upload(alice.apiKey));
    const tampered = new URL(url);
    tampered.searchParams.set("token", `${url.searchParams.get("token")}x`);
    const session = randomUUID();
    expect((await process(alice.apiKey, session, tampered.toString())).status).toBe(400);
    expect((await process(bob.apiKey, session, url.toString())).status).toBe(404);
    expect(await messagesOf(session)).toEqual([]);
  });

  it("records a valid image on the user message", async () => {
    const user = await createTestUser();
    const url = await upload(user.apiKey);
    const session = randomUUID();
    const res = await process(user.apiKey, session, url);
    expect(res.status).toBe(200);
    const [first] = await messagesOf(session);
    expect(first).toMatchObject({ role: "user", metadata: { user_message_attachments: { bucket: "agent-files", mime_type: "image/png" } } });
  });
});
