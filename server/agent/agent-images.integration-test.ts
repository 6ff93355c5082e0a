import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { pngBytes } from "@/test/images";
import { postRun, runInput } from "@/test/runs";
import { collectSse } from "@/test/sse";

describe("images in a run", () => {
  it("reach the model as bytes read server-side, never as the signed URL", async () => {
    const user = await createTestUser();
    const form = new FormData();
    form.set("file", new Blob([Buffer.from(pngBytes(7))], { type: "image/png" }), "photo.png");
    const uploaded = (await (await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(user.apiKey), body: form })).json()) as {
      url: string;
    };
    const body = runInput({
      threadId: randomUUID(),
      messages: [{ id: "u1", role: "user", content: [{ type: "text", text: "[[show:messages]] what is this?" }, { type: "binary", mimeType: "image/png", url: uploaded.url }] }],
    });
    const frames = await collectSse(await postRun(user.apiKey, body, { stream: true }));
    const answer = frames
      .map((f) => JSON.parse(f.data) as { type: string; delta?: string })
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT")
      .map((e) => e.delta)
      .join("");
    expect(answer).toContain("[image data:image/png;base64,");
    expect(answer).not.toContain(new URL(uploaded.url).searchParams.get("token") ?? "no-token");
    expect(answer).not.toContain("/storage/v1/object/sign/");
  });
});
