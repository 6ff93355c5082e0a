import "server-only";
import { createHash } from "node:crypto";
import { z } from "zod";
import { env } from "../env";
import { AppError } from "../kernel/errors";
import { RUN_INPUT_ERRORS, UUID_PATTERN } from "../protocols/ag-ui/run-input-rules";
import type { UserImageRef } from "../protocols/ag-ui/run-input";
import {
  UNVERIFIED_SHA256,
  findAttachment,
  findAttachmentForUser,
  findThreadOwner,
  insertAttachment,
  markAttachmentVerified,
  type AttachmentRow,
} from "./repository";
import { ATTACHMENT_NOT_FOUND } from "../storage/attachment-bytes";
import { getStorage } from "../storage/driver";
import type { ObjectRef } from "../storage/types";
import { isImageMimeType } from "../protocols/ag-ui/run-input-rules";
import { claimedUploadType, cleanFileName, IMAGE_TOO_LARGE_MESSAGE, isDocumentUpload, requireMatchingContent, requireUploadSize, requireUploadType, type UploadMimeType } from "../files/upload-type";
import { newAttachmentKey } from "../storage/object-key";
import { parseSignedUrl, type SignedUrlParse, type StorageTargets } from "../storage/signed-url";
import { normalizeImageType } from "../storage/image-type";
import { normalizeDocumentType } from "../files/document-type";
import { readLimitedBody } from "../storage/upload-body";

// Attachments, images and documents (server/files): upload (direct or presigned), the signed
// URLs that name them, and the check that turns a run's URLs into stored objects the caller
// owns. Every signed URL is short-lived; history signs fresh ones instead of replaying what the
// client sent.

export const SIGNED_URL_TTL_SECONDS = 15 * 60;
export const TOO_LARGE_MESSAGE = IMAGE_TOO_LARGE_MESSAGE;

/** What a user message's metadata records per attachment (spec: user_message_attachments); documents add their name. */
export const AttachmentRefSchema = z.object({
  bucket: z.string().min(1),
  path: z.string().min(1),
  mime_type: z.string().min(1),
  file_name: z.string().optional(),
  size: z.number().int().optional(),
});
export type AttachmentRef = z.infer<typeof AttachmentRefSchema>;
export type AttachmentLink = AttachmentRef & { url: string };

const StoredAttachmentsSchema = z.union([AttachmentRefSchema, z.array(AttachmentRefSchema)]);

const URL_ERRORS = {
  invalid: "binary content url is not a valid signed URL",
  foreign: "binary content url must be a signed URL issued by /api/v1/agent/attachments",
  signature: "binary content url signature is invalid",
  expired: "binary content url has expired",
  notFound: ATTACHMENT_NOT_FOUND,
} as const;

// The origins this instance signed URLs for (each request's, when PUBLIC_URL is unset), newest
// last: the app is reached under several names (localhost and 127.0.0.1, a LAN address, a
// domain), and a URL signed under one of them is still ours when a run brings it under another.
// Bounded, since the names come from clients' Host headers; the token decides either way.
const SIGNED_ORIGINS_KEPT = 32;
const signedOrigins = new Set<string>();

/** The origin absolute app URLs use: PUBLIC_URL when set, else the origin the request was sent to (server/http/origin.ts). */
function publicOrigin(requestOrigin?: string | null): string {
  if (env.PUBLIC_URL) return new URL(env.PUBLIC_URL).origin;
  const origin = requestOrigin ?? `http://localhost:${env.PORT}`;
  signedOrigins.delete(origin);
  signedOrigins.add(origin);
  if (signedOrigins.size > SIGNED_ORIGINS_KEPT) signedOrigins.delete(signedOrigins.values().next().value!);
  return origin;
}

// localhost, 127.0.0.1 and [::1] on one port are one server.
const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];
function loopbackAliases(origin: string): string[] {
  const url = new URL(origin);
  if (!LOOPBACK_HOSTS.includes(url.hostname)) return [];
  return LOOPBACK_HOSTS.map((host) => `${url.protocol}//${host}${url.port ? `:${url.port}` : ""}`);
}

function storageTargets(requestOrigin?: string | null): StorageTargets {
  const storage = getStorage();
  const own = [env.PUBLIC_URL ? new URL(env.PUBLIC_URL).origin : null, requestOrigin ?? null, ...signedOrigins].filter((o): o is string => o !== null);
  const origins = [...new Set(own.flatMap((o) => [o, ...loopbackAliases(o)]))];
  return storage.name === "s3" ? { origins, s3: storage.target } : { origins };
}

/** parseSignedUrl for this server's storage: {bucket, path} of one of our signed URLs, or why not. Signatures are not checked here. */
export function parseAttachmentUrl(url: string, opts: { requestOrigin?: string | null } = {}): SignedUrlParse {
  return parseSignedUrl(url, storageTargets(opts.requestOrigin));
}

const expiry = () => new Date(Date.now() + SIGNED_URL_TTL_SECONDS * 1000);
const sha256Hex = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

// A document's reference also names it and gives its size, for the chat's file chip and the model.
function toRef(row: Pick<AttachmentRow, "bucket" | "path" | "mimeType" | "fileName" | "size">): AttachmentRef {
  const ref = { bucket: row.bucket, path: row.path, mime_type: row.mimeType };
  if (!isDocumentUpload(row.mimeType)) return ref;
  return row.fileName ? { ...ref, file_name: row.fileName, size: row.size } : { ...ref, size: row.size };
}

async function checkThreadForUpload({ userId, threadId }: { userId: string; threadId: string | null }): Promise<void> {
  if (threadId === null) return;
  if (!UUID_PATTERN.test(threadId)) throw new AppError("BAD_REQUEST", "threadId must be a valid UUID", { field: "threadId" });
  const owner = await findThreadOwner({ id: threadId });
  if (owner !== null && owner !== userId) throw new AppError("NOT_FOUND", `Thread ${threadId} not found`);
}

export type UploadedAttachment = AttachmentRef & { url: string; size: number; expires_at: string };

/** A document keeps the name it was uploaded under (shown to the model and in the chat); an image keeps none. */
function documentName(mimeType: UploadMimeType, name: string | null | undefined): string | null {
  return isDocumentUpload(mimeType) ? cleanFileName(name) : null;
}

/** Stores one uploaded image or document for the user and answers where it is, with a signed URL to it. */
export async function uploadAttachment(opts: {
  userId: string;
  threadId: string | null;
  file: { data: Uint8Array; declaredType: string | null; fileName?: string | null };
  requestOrigin?: string | null;
}): Promise<UploadedAttachment> {
  const mimeType = requireUploadType(claimedUploadType(opts.file.declaredType, opts.file.fileName));
  requireUploadSize(mimeType, opts.file.data.byteLength);
  await requireMatchingContent(opts.file.data, mimeType);
  await checkThreadForUpload(opts);
  const storage = getStorage();
  const ref = { bucket: storage.bucket, path: newAttachmentKey({ userId: opts.userId, threadId: opts.threadId, mimeType }) };
  await storage.putObject({ ...ref, body: opts.file.data, contentType: mimeType });
  const size = opts.file.data.byteLength;
  const fileName = documentName(mimeType, opts.file.fileName);
  const row = await insertAttachment({ ...ref, userId: opts.userId, threadId: opts.threadId, driver: storage.name, mimeType, size, sha256: sha256Hex(opts.file.data), fileName });
  const expiresAt = expiry();
  const url = await storage.signGetUrl({ ...ref, expiresAt, origin: publicOrigin(opts.requestOrigin) });
  return { ...toRef(row), url, size, expires_at: expiresAt.toISOString() };
}

export const PresignRequestSchema = z.object({
  mime_type: z.string().describe("The file's MIME type: image/png, image/jpeg, image/gif, image/webp, application/pdf, text/plain, text/markdown, text/csv or application/json"),
  size: z.number().int().describe("The exact size of the file in bytes"),
  threadId: z.string().nullish().describe("The thread the file is for, when it is known"),
  file_name: z.string().max(1000).nullish().describe("A document's name as the user knows it (shown to the model and in the chat)"),
});
export type PresignRequest = z.infer<typeof PresignRequestSchema>;

export type PresignedAttachment = UploadedAttachment & { upload: { method: "PUT"; url: string; headers: Record<string, string>; expires_at: string } };

/**
 * Reserves a key for a large upload straight from the browser to storage: a PUT URL bound
 * to the declared type and exact size, and the GET URL the image will have. The bytes are
 * checked when a run first uses the image.
 */
export async function presignAttachmentUpload(opts: { userId: string; request: PresignRequest; requestOrigin?: string | null }): Promise<PresignedAttachment> {
  const mimeType = requireUploadType(claimedUploadType(opts.request.mime_type, opts.request.file_name));
  const size = opts.request.size;
  requireUploadSize(mimeType, size);
  if (size < 1) throw new AppError("BAD_REQUEST", "size must be a positive number of bytes", { field: "size" });
  const threadId = opts.request.threadId ?? null;
  await checkThreadForUpload({ userId: opts.userId, threadId });
  const storage = getStorage();
  const ref = { bucket: storage.bucket, path: newAttachmentKey({ userId: opts.userId, threadId, mimeType }) };
  const fileName = documentName(mimeType, opts.request.file_name);
  const row = await insertAttachment({ ...ref, userId: opts.userId, threadId, driver: storage.name, mimeType, size, sha256: UNVERIFIED_SHA256, fileName });
  const expiresAt = expiry();
  const origin = publicOrigin(opts.requestOrigin);
  const put = await storage.presignPut({ ...ref, contentType: mimeType, contentLength: size, expiresAt, origin });
  const url = await storage.signGetUrl({ ...ref, expiresAt, origin });
  return {
    ...toRef(row),
    url,
    size,
    expires_at: expiresAt.toISOString(),
    upload: { method: "PUT", url: put.url, headers: put.headers, expires_at: expiresAt.toISOString() },
  };
}

/** The bytes of a presigned upload, checked once: the declared type, size, and its hash recorded. */
async function verifyPresignedUpload(row: AttachmentRow): Promise<void> {
  const stored = await getStorage().getObject(row);
  if (!stored) throw new AppError("NOT_FOUND", URL_ERRORS.notFound);
  requireUploadSize(row.mimeType as UploadMimeType, stored.data.byteLength);
  await requireMatchingContent(stored.data, row.mimeType as UploadMimeType);
  await markAttachmentVerified({ id: row.id, size: stored.data.byteLength, sha256: sha256Hex(stored.data) });
}

/** An image part must name a stored image, a document part a stored document. */
function requireKind(row: AttachmentRow, declared: string): void {
  if (isImageMimeType(declared) ? row.mimeType.startsWith("image/") : isDocumentUpload(row.mimeType)) return;
  throw new AppError("BAD_REQUEST", isImageMimeType(declared) ? RUN_INPUT_ERRORS.binaryMimeType : RUN_INPUT_ERRORS.documentMimeType);
}

async function resolveOne({ userId, parsed, declared }: { userId: string; parsed: SignedUrlParse; declared: string }): Promise<AttachmentRef> {
  if (!parsed.ok) {
    if (parsed.reason === "data-url") throw new AppError("BAD_REQUEST", RUN_INPUT_ERRORS.binaryData);
    throw new AppError("BAD_REQUEST", parsed.reason === "unknown-host" ? URL_ERRORS.foreign : URL_ERRORS.invalid);
  }
  const storage = getStorage();
  if (parsed.kind !== storage.name || parsed.bucket !== storage.bucket) throw new AppError("BAD_REQUEST", URL_ERRORS.foreign);
  const check = await storage.checkSignedGetUrl(parsed);
  if (!check.ok) throw new AppError("BAD_REQUEST", URL_ERRORS[check.reason]);
  const row = await findAttachmentForUser({ bucket: parsed.bucket, path: parsed.path, userId });
  if (!row || !(await storage.headObject(row))) throw new AppError("NOT_FOUND", URL_ERRORS.notFound);
  requireKind(row, declared);
  if (row.sha256 === UNVERIFIED_SHA256) await verifyPresignedUpload(row);
  return toRef(row);
}

/**
 * Turns a run's image URLs (from userMessageParts(input).images) into the stored objects
 * they name, or throws the 4xx that says why not: not one of our signed URLs (400),
 * tampered or expired (400), not the caller's or missing (404, never revealing which).
 * Call it before startRun, so a rejected run leaves nothing behind.
 */
export async function resolveRunAttachments(opts: {
  userId: string;
  images: UserImageRef[];
  requestOrigin?: string | null;
}): Promise<{ attachments: AttachmentRef[]; userMessageMetadata?: { user_message_attachments: AttachmentRef | AttachmentRef[] } }> {
  if (opts.images.length === 0) return { attachments: [] };
  const attachments: AttachmentRef[] = [];
  for (const image of opts.images) attachments.push(await resolveOne({ userId: opts.userId, parsed: parseAttachmentUrl(image.url, opts), declared: image.mimeType }));
  return { attachments, userMessageMetadata: { user_message_attachments: attachments.length === 1 ? attachments[0]! : attachments } };
}

/** Fresh signed URLs for the attachments a stored user message's metadata records. */
export async function attachmentLinks(opts: { metadata: Record<string, unknown>; requestOrigin?: string | null }): Promise<AttachmentLink[]> {
  const stored = StoredAttachmentsSchema.safeParse(opts.metadata.user_message_attachments);
  if (!stored.success) return [];
  const refs = Array.isArray(stored.data) ? stored.data : [stored.data];
  const storage = getStorage();
  const expiresAt = expiry();
  const origin = publicOrigin(opts.requestOrigin);
  // An attachment kept by a storage this server no longer uses has no URL to give.
  const reachable = refs.filter((ref) => ref.bucket === storage.bucket);
  return Promise.all(reachable.map(async (ref) => ({ ...ref, url: await storage.signGetUrl({ bucket: ref.bucket, path: ref.path, expiresAt, origin }) })));
}

// The local driver's own signed URLs, served by the app (S3 serves its own).

function localStorageOr404() {
  const storage = getStorage();
  if (storage.name !== "local") throw new AppError("NOT_FOUND", "Not found");
  return storage;
}

const TOKEN_ERRORS = {
  expired: "The signed URL has expired",
  malformed: "The signed URL is invalid",
  signature: "The signed URL is invalid",
  object: "The signed URL is invalid",
  operation: "The signed URL is invalid",
} as const;

/** GET {origin}/storage/v1/object/sign/{bucket}/{path}?token=: the object, if the token allows it. */
export async function openSignedObject({ bucket, path, token }: ObjectRef & { token: string | null }) {
  const storage = localStorageOr404();
  const check = storage.verifyToken(token, { bucket, path, op: "get" });
  if (!check.ok) throw new AppError("FORBIDDEN", TOKEN_ERRORS[check.reason]);
  const object = await storage.openObject({ bucket, path });
  if (!object) throw new AppError("NOT_FOUND", URL_ERRORS.notFound);
  return object;
}

/**
 * PUT {origin}/storage/v1/object/upload/sign/{bucket}/{path}?token=: a presigned upload to
 * local storage, held to what was signed (type, exact length) and to the image's bytes.
 */
export async function receiveSignedUpload(opts: ObjectRef & {
  token: string | null;
  contentType: string | null;
  body: ReadableStream<Uint8Array> | null;
}): Promise<ObjectRef> {
  const storage = localStorageOr404();
  const check = storage.verifyToken(opts.token, { bucket: opts.bucket, path: opts.path, op: "put" });
  if (!check.ok) throw new AppError("FORBIDDEN", TOKEN_ERRORS[check.reason]);
  const signedType = check.claims.ct;
  const signedLength = check.claims.len;
  if (!signedType || signedLength === undefined) throw new AppError("FORBIDDEN", TOKEN_ERRORS.malformed);
  if ((normalizeImageType(opts.contentType) ?? normalizeDocumentType(opts.contentType)) !== signedType) {
    throw new AppError("FORBIDDEN", `Content-Type must be ${signedType}, as signed for this upload`);
  }
  const data = await readLimitedBody(opts.body, { maxBytes: signedLength, tooLargeMessage: `The body must be exactly ${signedLength} bytes, as signed for this upload` });
  if (data.byteLength !== signedLength) throw new AppError("BAD_REQUEST", `The body must be exactly ${signedLength} bytes, as signed for this upload`);
  await requireMatchingContent(data, signedType as UploadMimeType);
  const row = await findAttachment(opts);
  if (!row) throw new AppError("NOT_FOUND", URL_ERRORS.notFound);
  await storage.putObject({ bucket: opts.bucket, path: opts.path, body: data, contentType: signedType });
  await markAttachmentVerified({ id: row.id, size: data.byteLength, sha256: sha256Hex(data) });
  return { bucket: opts.bucket, path: opts.path };
}
