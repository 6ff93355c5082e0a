import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { baseUrl, createTestUser } from "@/test/helpers";
import { appendMessage, createThread } from "@/test/thread-fixtures";
import { apiDocument } from "@/server/http/endpoints/openapi";
import { createDispatchClient, dataOf } from "./client";
import { tidyThread } from "./examples/threads";

// Auth.js cannot load outside Next; the document needs none of it.
vi.mock("@/server/auth/session", () => ({}));

describe("the typed client, used as the README shows", () => {
  it("searches, renames, tags, lists runs, forks and deletes with nothing but an API key", async () => {
    const user = await createTestUser();
    const threadId = randomUUID();
    await createThread({ id: threadId, userId: user.id, title: "New chat" });
    await appendMessage({ threadId, role: "user", messageId: "q", runId: null, content: "Which telescope should I buy?", metadata: {} });
    await appendMessage({ threadId, role: "assistant", messageId: "a", runId: null, content: "A small refractor telescope is a good start.", metadata: {} });

    const client = createDispatchClient({ baseUrl: baseUrl(), apiKey: user.apiKey });
    const result = await tidyThread(client, "telescope");

    expect(result).not.toBeNull();
    expect(result!.thread).toMatchObject({ id: threadId, title: "About telescope", tags: ["triaged"], metadata: { source: "example" } });
    expect(result!.highlighted.map((h) => h.toLowerCase())).toContain("telescope");
    expect(result!.runIds).toEqual([]);
    expect(result!.taggedIds).toEqual([result!.forkId, threadId]);
    expect(result!.taggedAfterDelete).toEqual([threadId]);
    const gone = await client.GET("/api/v1/threads/{threadId}", { params: { path: { threadId: result!.forkId } } });
    expect(gone.response.status).toBe(404);
    expect(() => dataOf(gone)).toThrow(/404 NOT_FOUND/);
  });
});

describe("the OpenAPI document and its reference page", () => {
  it("are served by the app: the document the SDK is generated from, rendered by Scalar", async () => {
    const served = await fetch(`${baseUrl()}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(JSON.parse(JSON.stringify(apiDocument())));
    const page = await fetch(`${baseUrl()}/api/v1/reference`);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('data-url="/api/v1/openapi.json"');
    const script = await fetch(`${baseUrl()}/api/v1/reference/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});
