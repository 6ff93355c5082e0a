import { GetObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { gifBytes, pngBytes, textBytes } from "@/test/images";
import { s3ClientOf, startS3Server } from "@/test/s3-server";

// The S3 driver end to end, in process, against a real S3-compatible server that checks
// signatures and expiry. The environment names the server before any app module loads,
// so the app picks its storage exactly as it does in production.
const s3 = await startS3Server();
Object.assign(process.env, s3.env);
afterAll(() => s3.stop());

const { createTestUser } = await import("@/test/helpers");
const { runInput } = await import("@/test/runs");
const { getPool } = await import("@/server/db");
const { getStorage } = await import("@/server/storage/driver");
const { parseRunAgentInput, userMessageParts } = await import("@/server/protocols/ag-ui/run-input");
const { acceptRun } = await import("@/server/runs/accept");
const { presignAttachmentUpload, resolveRunAttachments, uploadAttachment } = await import("./service");
const { loadAttachmentBytes } = await import("../storage/attachment-bytes");
const { getHistoryDay } = await import("../threads/service/history");

const [alice, bob] = await Promise.all([createTestUser(), createTestUser()]);
const origin = "http://dispatch.test";
const client = s3ClientOf(s3);

const upload = (userId: string, data: Uint8Array, declaredType = "image/png", threadId: string | null = null) =>
  uploadAttachment({ userId, threadId, file: { data, declaredType }, requestOrigin: origin });

const resolve = (userId: string, ...urls: string[]) =>
  resolveRunAttachments({ userId, images: urls.map((url) => ({ url, mimeType: "image/png" })), requestOrigin: origin });

async function bytesAt(url: string): Promise<{ status: number; type: string | null; bytes: Buffer }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get("content-type"), bytes: Buffer.from(await res.arrayBuffer()) };
}

const signedAt = (url: string) => new URL(url).searchParams.get("X-Amz-Date");

describe("S3 storage", () => {
  it("is the storage the environment selects", () => {
    expect(getStorage()).toMatchObject({ name: "s3", bucket: s3.bucket });
  });

  it("uploads an image under a server-chosen key and answers a checksum-free signed URL that downloads it", async () => {
    const threadId = randomUUID();
    const data = pngBytes(1);
    const uploaded = await upload(alice.id, data, "image/png", threadId);
    expect(uploaded).toMatchObject({ bucket: s3.bucket, mime_type: "image/png", size: data.byteLength });
    expect(uploaded.path).toMatch(new RegExp(`^agent-inputs/${alice.id}/${threadId}/[0-9a-f]{32}\\.png$`));
    expect(uploaded.url.startsWith(`${s3.endpoint}/${s3.bucket}/${uploaded.path}?`)).toBe(true);
    expect(uploaded.url).not.toMatch(/x-amz-checksum/i);
    expect(new URL(uploaded.url).searchParams.get("X-Amz-Expires")).toBe("900");
    expect(await bytesAt(uploaded.url)).toEqual({ status: 200, type: "image/png", bytes: Buffer.from(data) });
    expect(await loadAttachmentBytes(uploaded)).toEqual({ mimeType: "image/png", data: new Uint8Array(data) });
  });

  it("refuses non-image bytes and types that disagree with the bytes, storing nothing", async () => {
    await expect(upload(alice.id, textBytes(), "image/png")).rejects.toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    await expect(upload(alice.id, gifBytes(), "image/png")).rejects.toMatchObject({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: "The file's declared type image/png does not match its content (image/gif)",
    });
    await expect(upload(alice.id, pngBytes(), "image/svg+xml")).rejects.toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    const { rows } = await getPool().query(`select count(*)::int as n from attachments where user_id = $1 and mime_type <> 'image/png'`, [alice.id]);
    expect(rows[0].n).toBe(0);
  });

  it("runs with the image, records it on the user message, and history signs it afresh", async () => {
    const data = pngBytes(2);
    const uploaded = await upload(alice.id, data);
    // An older (still valid) URL, so the one history signs is visibly newer.
    const older = await getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: uploaded.path }), {
      expiresIn: 900,
      signingDate: new Date(Date.now() - 300_000),
    });
    const parsed = parseRunAgentInput(
      JSON.stringify(
        runInput({
          messages: [{ id: `m-${randomUUID()}`, role: "user", content: [{ type: "text", text: "what is this?" }, { type: "binary", mimeType: "image/png", url: older }] }],
        }),
      ),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const input = parsed.input;
    const { userMessageMetadata } = await resolveRunAttachments({ userId: alice.id, images: userMessageParts(input).images, requestOrigin: origin });
    const ref = { bucket: s3.bucket, path: uploaded.path, mime_type: "image/png" };
    expect(userMessageMetadata).toEqual({ user_message_attachments: ref });
    // Accepted but not executed: what is recorded does not depend on any runner.
    await acceptRun({ userId: alice.id, input, protocol: "ag-ui", runner: "test", userMessageMetadata });

    const history = await getHistoryDay({ userId: alice.id, threadId: input.threadId, before: null });
    const user = history.messages.find((m) => m.role === "user");
    expect(user).toMatchObject({ content: "what is this?", attachments: [ref] });
    if (user?.role !== "user" || !user.url) throw new Error("no user message url");
    expect(user.url).not.toBe(older);
    expect(Number(signedAt(user.url)!.replace(/\D/g, ""))).toBeGreaterThan(Number(signedAt(older)!.replace(/\D/g, "")));
    expect(await bytesAt(user.url)).toMatchObject({ status: 200, bytes: Buffer.from(data) });
  });

  it("refuses tampered, expired, foreign, unknown-host, data: and missing-object URLs", async () => {
    const uploaded = await upload(alice.id, pngBytes(3));
    const sig = new URL(uploaded.url).searchParams.get("X-Amz-Signature")!;
    const tamperedSig = uploaded.url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`);
    const other = await upload(alice.id, pngBytes(4));
    const tamperedKey = uploaded.url.replace(uploaded.path, other.path);
    const expired = await getSignedUrl(client, new GetObjectCommand({ Bucket: s3.bucket, Key: uploaded.path }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 3_600_000),
    });
    // S3 itself refuses all three, so the server is not stricter than storage, only earlier.
    for (const url of [tamperedSig, tamperedKey, expired]) expect((await fetch(url)).status).toBe(403);

    await expect(resolve(alice.id, tamperedSig)).rejects.toMatchObject({ status: 400, message: "binary content url signature is invalid" });
    await expect(resolve(alice.id, tamperedKey)).rejects.toMatchObject({ status: 400, message: "binary content url signature is invalid" });
    await expect(resolve(alice.id, expired)).rejects.toMatchObject({ status: 400, message: "binary content url has expired" });
    await expect(resolve(alice.id, uploaded.url.replace("127.0.0.1", "localhost"))).rejects.toMatchObject({
      status: 400,
      message: "binary content url must be a signed URL issued by /api/v1/agent/attachments",
    });
    await expect(resolve(alice.id, "data:image/png;base64,iVBORw0KGgo=")).rejects.toMatchObject({ status: 400, message: "binary content data is not allowed" });

    const foreign = resolve(bob.id, uploaded.url).catch((e: unknown) => e);
    const reserved = await presignAttachmentUpload({ userId: alice.id, request: { mime_type: "image/png", size: 100 }, requestOrigin: origin });
    const missing = resolve(alice.id, reserved.url).catch((e: unknown) => e);
    // Someone else's image and a missing one are the same answer: nothing reveals it exists.
    expect(await foreign).toMatchObject({ status: 404, message: "Attachment not found" });
    expect(await missing).toMatchObject({ status: 404, message: "Attachment not found" });
  });

  it("presigns a PUT bound to type and length, and checks the bytes when a run first uses them", async () => {
    const data = pngBytes(5);
    const reserved = await presignAttachmentUpload({ userId: alice.id, request: { mime_type: "image/png", size: data.byteLength }, requestOrigin: origin });
    expect(reserved.upload.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
    expect(reserved.path).toMatch(new RegExp(`^agent-inputs/${alice.id}/[0-9a-f-]{36}/[0-9a-f]{32}\\.png$`));
    const put = (body: Uint8Array, type: string) => fetch(reserved.upload.url, { method: "PUT", body: Buffer.from(body), headers: { "content-type": type } });
    expect((await put(data, "image/jpeg")).status).toBe(403);
    expect((await put(new Uint8Array(Buffer.concat([Buffer.from(data), Buffer.from([0])])), "image/png")).status).toBe(403);
    expect((await put(data, "image/png")).status).toBe(200);

    expect(await resolve(alice.id, reserved.url)).toMatchObject({ attachments: [{ bucket: s3.bucket, path: reserved.path, mime_type: "image/png" }] });
    const { rows } = await getPool().query(`select size, sha256 from attachments where path = $1`, [reserved.path]);
    expect(rows[0]).toEqual({ size: data.byteLength, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it("refuses a presigned upload whose bytes are not the image it declared", async () => {
    const data = textBytes();
    const reserved = await presignAttachmentUpload({ userId: alice.id, request: { mime_type: "image/png", size: data.byteLength }, requestOrigin: origin });
    const res = await fetch(reserved.upload.url, { method: "PUT", body: Buffer.from(data), headers: { "content-type": "image/png" } });
    expect(res.status).toBe(200);
    await expect(resolve(alice.id, reserved.url)).rejects.toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
  });

  it("refuses presigning oversize or non-image uploads", async () => {
    await expect(presignAttachmentUpload({ userId: alice.id, request: { mime_type: "image/png", size: 10 * 1024 * 1024 + 1 } })).rejects.toMatchObject({
      status: 413,
    });
    await expect(presignAttachmentUpload({ userId: alice.id, request: { mime_type: "application/zip", size: 10 } })).rejects.toMatchObject({ status: 415 });
  });
});
