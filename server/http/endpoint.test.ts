import { describe, expect, it, vi } from "vitest";
import { AppError } from "../kernel/errors";
import { jsonBody } from "./bodies";
import { endpoint } from "./endpoint";
import { jsonResponse } from "./json";
import { z } from "zod";

// Auth.js cannot load outside Next; these endpoints authenticate no one.
vi.mock("../auth/session", () => ({}));

const ctx = (params: Record<string, string | string[]> = {}) => ({ params: Promise.resolve(params) });

describe("endpoint", () => {
  it("answers a thrown AppError as {error:{code,message,details}} with its status and the request id", async () => {
    const e = endpoint({
      method: "GET",
      path: "/x",
      auth: "none",
      handle: async () => {
        throw new AppError("NOT_FOUND", "Nothing here", { field: "id" });
      },
    });
    const res = await e.handler(new Request("http://test/x", { headers: { "x-request-id": "req-1" } }), ctx());
    expect(res.status).toBe(404);
    expect(res.headers.get("x-request-id")).toBe("req-1");
    expect(await res.json()).toEqual({ error: { code: "NOT_FOUND", message: "Nothing here", details: { field: "id" } } });
  });

  it("negotiates before the body is read, and names the first field a JSON body gets wrong", async () => {
    let read = false;
    const e = endpoint({
      method: "POST",
      path: "/x",
      auth: "none",
      negotiate: (req) => {
        if (req.headers.get("accept") === "text/html") throw new AppError("NOT_ACCEPTABLE", "No HTML");
        return "json" as const;
      },
      body: { read: async (req) => ((read = true), jsonBody(z.object({ size: z.number() })).read(req)) },
      handle: async ({ body, negotiated }) => jsonResponse({ size: body.size, negotiated }),
    });
    const post = (body: string, accept = "application/json") => new Request("http://test/x", { method: "POST", body, headers: { accept } });
    expect((await e.handler(post("{}", "text/html"), ctx())).status).toBe(406);
    expect(read).toBe(false);
    const wrong = await e.handler(post(JSON.stringify({ size: "big" })), ctx());
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: { code: "BAD_REQUEST", message: expect.stringMatching(/^size: /), details: { field: "size" } } });
    expect((await e.handler(post("not json"), ctx())).status).toBe(400);
    expect(await (await e.handler(post(JSON.stringify({ size: 3 })), ctx())).json()).toEqual({ size: 3, negotiated: "json" });
  });

  it("closes the connection on an upload refused before its body was read through, not after", async () => {
    const e = endpoint({
      method: "PUT",
      path: "/up/[...path]",
      auth: "none",
      upload: true,
      body: { read: async (req) => (req.headers.get("x-refuse") ? Promise.reject(new AppError("PAYLOAD_TOO_LARGE", "Too large")) : req.text()) },
      handle: async ({ params, body }) => {
        if (body === "bad") throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Not an image");
        return jsonResponse({ path: params.path, body });
      },
    });
    const put = (body: string, headers: Record<string, string> = {}) => new Request("http://test/up/a/b", { method: "PUT", body, headers });
    const refused = await e.handler(put("x".repeat(1_000), { "x-refuse": "1" }), ctx({ path: ["a", "b"] }));
    expect(refused.status).toBe(413);
    expect(refused.headers.get("connection")).toBe("close");
    const afterRead = await e.handler(put("bad"), ctx({ path: ["a", "b"] }));
    expect(afterRead.status).toBe(415);
    expect(afterRead.headers.get("connection")).toBeNull();
    // A catch-all segment reaches the handler as the path it was.
    expect(await (await e.handler(put("ok"), ctx({ path: ["a", "b"] }))).json()).toEqual({ path: "a/b", body: "ok" });
  });

  it("lets a protocol with its own error shape answer its failures", async () => {
    const e = endpoint({
      method: "POST",
      path: "/p/[name]",
      auth: "none",
      handle: async () => {
        throw new Error("boom");
      },
      refuse: async (err, _req, params) => jsonResponse({ ok: false, name: params.name, message: (err as Error).message }, 418),
    });
    const res = await e.handler(new Request("http://test/p/n", { method: "POST" }), ctx({ name: "n" }));
    expect(res.status).toBe(418);
    expect(await res.json()).toEqual({ ok: false, name: "n", message: "boom" });
  });
});
