import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { getPool } from "@/server/db";
import { getStorage } from "@/server/storage/driver";
import { signUrlToken } from "@/server/storage/url-token";
import { baseUrl, bearer, createTestUser } from "@/test/helpers";
import { gifBytes, jpegBytes, pngBytes, textBytes, webpBytes } from "@/test/images";
import { getJson, postRun, runInput } from "@/test/runs";

// Attachments over real HTTP against the production server, which uses the local-disk
// driver (no S3 configured): upload, signed URLs served by the app, runs that reference
// them, and history. This process shares the server's AUTH_SECRET and DATA_DIR, so it can
// sign URLs the server accepts, such as one that has already expired.

let alice: Awaited<ReturnType<typeof createTestUser>>;
let bob: Awaited<ReturnType<typeof createTestUser>>;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
});

type Uploaded = { bucket: string; path: string; mime_type: string; url: string; size: number; expires_at: string };

function upload(key: string, data: Uint8Array, type: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append("file", new Blob([Buffer.from(data)], { type }), "image");
  return fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(key), body: form });
}

async function uploaded(key: string, data: Uint8Array, type = "image/png", fields: Record<string, string> = {}): Promise<Uploaded> {
  const res = await upload(key, data, type, fields);
  expect(res.status).toBe(201);
  return (await res.json()) as Uploaded;
}

async function download(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

const localUrl = (path: string, token: string, origin = baseUrl()) => `${origin}/storage/v1/object/sign/agent-files/${path}?token=${token}`;
/** The URL with its token's signature changed in one character. */
const tampered = (url: string) => url.slice(0, -2) + (url.at(-2) === "A" ? "B" : "A") + url.at(-1);
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
const expOf = (url: string) => (JSON.parse(Buffer.from(tokenOf(url).split(".")[1]!, "base64url").toString("utf8")) as { exp: number }).exp;

function imageRun(parts: unknown[], overrides: Record<string, unknown> = {}) {
  return runInput({ messages: [{ id: `m-${randomUUID().slice(0, 8)}`, role: "user", content: [{ type: "text", text: "look at this" }, ...parts] }], ...overrides });
}
const binary = (url: string, mimeType = "image/png") => ({ type: "binary", mimeType, url });

type HistoryBody = { messages: { role: string; url?: string | null; attachments?: { bucket: string; path: string; mime_type: string; url: string }[] }[] };

async function errorOf(res: Response): Promise<{ status: number; message: string }> {
  return { status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message };
}

/** A refused run leaves no run, thread or message behind. */
async function expectNothingPersisted(key: string, body: { threadId: string; runId: string }): Promise<void> {
  expect((await getJson(key, `/api/v1/agent/runs/${body.runId}`)).status).toBe(404);
  expect((await getJson(key, `/api/v1/agent/history?threadId=${body.threadId}`)).status).toBe(404);
  const { rows } = await getPool().query(`select (select count(*) from runs where run_id = $1)::int as runs, (select count(*) from threads where id = $2)::int as threads`, [
    body.runId,
    body.threadId,
  ]);
  expect(rows[0]).toEqual({ runs: 0, threads: 0 });
}

describe("POST /api/v1/agent/attachments", () => {
  it("stores an image under a server-chosen key and answers a signed URL the app serves", async () => {
    const threadId = randomUUID();
    const data = pngBytes(11);
    const body = await uploaded(alice.apiKey, data, "image/png", { threadId });
    expect(body).toMatchObject({ bucket: "agent-files", mime_type: "image/png", size: data.byteLength });
    expect(body.path).toMatch(new RegExp(`^agent-inputs/${alice.id}/${threadId}/[0-9a-f]{32}\\.png$`));
    expect(body.url).toBe(`${baseUrl()}/storage/v1/object/sign/agent-files/${body.path}?token=${tokenOf(body.url)}`);
    // Valid for 15 minutes.
    expect(expOf(body.url) * 1000 - Date.now()).toBeGreaterThan(890_000);
    expect(expOf(body.url) * 1000 - Date.now()).toBeLessThanOrEqual(900_000);
    expect(await download(body.url)).toEqual({ status: 200, type: "image/png", bytes: Buffer.from(data) });
    const { rows } = await getPool().query(`select user_id, thread_id, driver, size from attachments where path = $1`, [body.path]);
    expect(rows).toEqual([{ user_id: alice.id, thread_id: threadId, driver: "local", size: data.byteLength }]);
  });

  it("accepts each allowed format, keyed by a fresh upload id when no thread is named", async () => {
    for (const [data, type, ext] of [[jpegBytes(), "image/jpeg", "jpg"], [gifBytes(), "image/gif", "gif"], [webpBytes(), "image/webp", "webp"]] as const) {
      const body = await uploaded(alice.apiKey, data, type);
      expect(body.path).toMatch(new RegExp(`^agent-inputs/${alice.id}/[0-9a-f-]{36}/[0-9a-f]{32}\\.${ext}$`));
      expect(await download(body.url)).toMatchObject({ status: 200, type });
    }
  });

  it("refuses bytes that are not the image type declared (415)", async () => {
    expect(await errorOf(await upload(alice.apiKey, textBytes(), "image/png"))).toEqual({ status: 415, message: "The file is not a PNG, JPEG, GIF or WebP image" });
    expect(await errorOf(await upload(alice.apiKey, jpegBytes(), "image/png"))).toEqual({
      status: 415,
      message: "The file's declared type image/png does not match its content (image/jpeg)",
    });
    expect((await upload(alice.apiKey, pngBytes(), "text/plain")).status).toBe(415);
    expect((await upload(alice.apiKey, pngBytes(), "image/svg+xml")).status).toBe(415);
  });

  it("refuses a file over 10 MB (413), by Content-Length or while counting a chunked body", async () => {
    const tooBig = new Uint8Array(10 * 1024 * 1024 + 1);
    tooBig.set(pngBytes());
    expect(await errorOf(await upload(alice.apiKey, tooBig, "image/png"))).toEqual({ status: 413, message: "Attachment exceeds the 10 MB size limit" });

    // No Content-Length: the server must count. 12 MB are offered; it stops after 10.
    const boundary = "dispatch-test-boundary";
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(Buffer.concat([head, Buffer.from(pngBytes())])));
      },
      pull(controller) {
        if (sent >= 12 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const res = await fetch(`${baseUrl()}/api/v1/agent/attachments`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": `multipart/form-data; boundary=${boundary}` },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(await errorOf(res)).toEqual({ status: 413, message: "Attachment exceeds the 10 MB size limit" });
    // The refused upload's connection is closed rather than left half-read for the next request.
    expect((await upload(alice.apiKey, pngBytes(), "image/png")).status).toBe(201);
  });

  it("needs authentication, a multipart body with a file, and the caller's own thread", async () => {
    const form = new FormData();
    form.append("file", new Blob([Buffer.from(pngBytes())], { type: "image/png" }), "a.png");
    expect((await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", body: form })).status).toBe(401);
    const noFile = new FormData();
    noFile.append("threadId", randomUUID());
    expect(await errorOf(await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: bearer(alice.apiKey), body: noFile }))).toEqual({
      status: 400,
      message: "The form has no `file` field",
    });
    const json = await fetch(`${baseUrl()}/api/v1/agent/attachments`, { method: "POST", headers: { ...bearer(alice.apiKey), "content-type": "image/png" }, body: Buffer.from(pngBytes()) });
    expect(json.status).toBe(415);
    expect((await upload(alice.apiKey, pngBytes(), "image/png", { threadId: "not-a-uuid" })).status).toBe(400);

    const bobsThread = runInput();
    expect((await postRun(bob.apiKey, bobsThread)).status).toBe(202);
    expect((await upload(alice.apiKey, pngBytes(), "image/png", { threadId: bobsThread.threadId })).status).toBe(404);
  });
});

describe("signed URLs served by the app", () => {
  it("refuse a tampered, expired or misdirected token (403) and a missing object (404)", async () => {
    const body = await uploaded(alice.apiKey, pngBytes(12));
    const token = tokenOf(body.url);
    const other = await uploaded(alice.apiKey, pngBytes(13));
    const storage = getStorage();
    const expired = await storage.signGetUrl({ bucket: body.bucket, path: body.path, expiresAt: new Date(Date.now() - 1000), origin: baseUrl() });
    expect(await errorOf(await fetch(tampered(body.url)))).toEqual({ status: 403, message: "The signed URL is invalid" });
    expect((await fetch(localUrl(other.path, token))).status).toBe(403);
    expect((await fetch(localUrl(body.path, ""))).status).toBe(403);
    expect(await errorOf(await fetch(expired))).toEqual({ status: 403, message: "The signed URL has expired" });
    const absent = `agent-inputs/${alice.id}/${randomUUID()}/${"0".repeat(32)}.png`;
    const absentToken = signUrlToken({ bucket: "agent-files", path: absent, op: "get", expiresAt: new Date(Date.now() + 60_000) });
    expect((await fetch(localUrl(absent, absentToken))).status).toBe(404);
  });
});

describe("a run with image attachments", () => {
  it("is accepted (202) with the attachment on its user message, and history signs a fresh URL to the same bytes", async () => {
    const data = pngBytes(21);
    const body = await uploaded(alice.apiKey, data);
    // A URL that is valid for one more minute only, so the fresh one is visibly newer.
    const shortLived = await getStorage().signGetUrl({ bucket: body.bucket, path: body.path, expiresAt: new Date(Date.now() + 60_000), origin: baseUrl() });
    const input = imageRun([binary(shortLived)]);
    expect((await postRun(alice.apiKey, input)).status).toBe(202);

    const ref = { bucket: "agent-files", path: body.path, mime_type: "image/png" };
    const { rows } = await getPool().query(`select m.metadata from messages m join runs r on r.id = m.run_id where r.run_id = $1 and m.role = 'user'`, [input.runId]);
    expect(rows[0].metadata).toMatchObject({ run_id: input.runId, user_message_attachments: ref });

    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${input.threadId}`)).json()) as HistoryBody;
    const user = history.messages.find((m) => m.role === "user")!;
    expect(user.url).toBeTruthy();
    expect(user.url).not.toBe(shortLived);
    expect(user.url!.startsWith(`${baseUrl()}/storage/v1/object/sign/agent-files/${body.path}?token=`)).toBe(true);
    expect(expOf(user.url!)).toBeGreaterThan(expOf(shortLived) + 600);
    expect(user.attachments).toEqual([{ ...ref, url: user.url }]);
    expect(await download(user.url!)).toEqual({ status: 200, type: "image/png", bytes: Buffer.from(data) });
  });

  it("records several images as an array, in order, from both wire forms", async () => {
    const first = await uploaded(alice.apiKey, pngBytes(22));
    const second = await uploaded(alice.apiKey, jpegBytes(), "image/jpeg");
    const input = imageRun([binary(first.url), { type: "image", source: { type: "url", value: second.url, mimeType: "image/jpeg" } }]);
    expect((await postRun(alice.apiKey, input)).status).toBe(202);
    const history = (await (await getJson(alice.apiKey, `/api/v1/agent/history?threadId=${input.threadId}`)).json()) as HistoryBody;
    const user = history.messages.find((m) => m.role === "user")!;
    expect(user.attachments!.map(({ path, mime_type }) => ({ path, mime_type }))).toEqual([
      { path: first.path, mime_type: "image/png" },
      { path: second.path, mime_type: "image/jpeg" },
    ]);
    expect(user.url).toBe(user.attachments![0]!.url);
    expect((await download(user.attachments![1]!.url)).type).toBe("image/jpeg");
  });

  it("refuses tampered, expired, foreign, unknown-host, data: and missing-object URLs with nothing persisted", async () => {
    const body = await uploaded(alice.apiKey, pngBytes(23));
    const token = tokenOf(body.url);
    const other = await uploaded(alice.apiKey, pngBytes(24));
    const expired = await getStorage().signGetUrl({ bucket: body.bucket, path: body.path, expiresAt: new Date(Date.now() - 1000), origin: baseUrl() });
    const reservedRes = await fetch(`${baseUrl()}/api/v1/agent/attachments/presign`, {
      method: "POST",
      headers: { ...bearer(alice.apiKey), "content-type": "application/json" },
      body: JSON.stringify({ mime_type: "image/png", size: 100 }),
    });
    const reserved = (await reservedRes.json()) as Uploaded;
    const cases: { name: string; key: string; url: string; status: number; message: string }[] = [
      { name: "tampered token", key: alice.apiKey, url: tampered(body.url), status: 400, message: "binary content url signature is invalid" },
      { name: "another object's token", key: alice.apiKey, url: localUrl(other.path, token), status: 400, message: "binary content url signature is invalid" },
      { name: "expired", key: alice.apiKey, url: expired, status: 400, message: "binary content url has expired" },
      { name: "unknown host", key: alice.apiKey, url: localUrl(body.path, token, "https://xxx.supabase.co"), status: 400, message: "binary content url must be a signed URL issued by /api/v1/agent/attachments" },
      { name: "not a signed URL", key: alice.apiKey, url: `${baseUrl()}/api/v1/me`, status: 400, message: "binary content url is not a valid signed URL" },
      { name: "data: URL", key: alice.apiKey, url: "data:image/png;base64,iVBORw0KGgo=", status: 400, message: "binary content data is not allowed" },
      { name: "another user's image", key: bob.apiKey, url: body.url, status: 404, message: "Attachment not found" },
      { name: "missing object", key: alice.apiKey, url: reserved.url, status: 404, message: "Attachment not found" },
    ];
    for (const c of cases) {
      const input = imageRun([binary(c.url)]);
      expect({ name: c.name, ...(await errorOf(await postRun(c.key, input))) }).toEqual({ name: c.name, status: c.status, message: c.message });
      await expectNothingPersisted(c.key, input);
    }
  });
});

describe("POST /api/v1/agent/attachments/presign (local storage)", () => {
  const presign = (key: string, body: unknown) =>
    fetch(`${baseUrl()}/api/v1/agent/attachments/presign`, { method: "POST", headers: { ...bearer(key), "content-type": "application/json" }, body: JSON.stringify(body) });
  type Presigned = Uploaded & { upload: { method: string; url: string; headers: Record<string, string> } };

  it("answers a PUT URL the app verifies: signed type and exact length, image bytes only", async () => {
    const data = pngBytes(31);
    const res = await presign(alice.apiKey, { mime_type: "image/png", size: data.byteLength });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Presigned;
    expect(body).toMatchObject({ bucket: "agent-files", mime_type: "image/png", upload: { method: "PUT", headers: { "content-type": "image/png" } } });
    expect(body.upload.url.startsWith(`${baseUrl()}/storage/v1/object/upload/sign/agent-files/${body.path}?token=`)).toBe(true);
    expect((await download(body.url)).status).toBe(404);

    const put = (bytes: Uint8Array, type: string, url = body.upload.url) => fetch(url, { method: "PUT", headers: { "content-type": type }, body: Buffer.from(bytes) });
    expect((await put(data, "image/jpeg")).status).toBe(403);
    expect((await put(new Uint8Array([...data, 0]), "image/png")).status).toBe(413);
    expect((await put(data.subarray(1), "image/png")).status).toBe(400);
    expect((await put(data, "image/png", body.url)).status).toBe(405);
    expect((await put(data, "image/png", tampered(body.upload.url))).status).toBe(403);
    expect((await put(data, "image/png")).status).toBe(200);
    expect(await download(body.url)).toEqual({ status: 200, type: "image/png", bytes: Buffer.from(data) });

    const input = imageRun([binary(body.url)]);
    expect((await postRun(alice.apiKey, input)).status).toBe(202);
  });

  it("refuses non-image bytes on PUT (415), non-image types (415) and oversize files (413)", async () => {
    const text = textBytes();
    const body = (await (await presign(alice.apiKey, { mime_type: "image/png", size: text.byteLength })).json()) as Presigned;
    expect((await fetch(body.upload.url, { method: "PUT", headers: { "content-type": "image/png" }, body: Buffer.from(text) })).status).toBe(415);
    expect((await presign(alice.apiKey, { mime_type: "image/svg+xml", size: 10 })).status).toBe(415);
    expect((await presign(alice.apiKey, { mime_type: "image/png", size: 10 * 1024 * 1024 + 1 })).status).toBe(413);
    expect((await presign(alice.apiKey, { mime_type: "image/png" })).status).toBe(400);
  });
});
