import "server-only";
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, stat, writeFile, rm } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { documentTypeForPath } from "../files/document-type";
import { imageTypeForPath } from "./image-type";
import type { ObjectRef, SignatureCheck, StorageDriver } from "./types";
import { isValidObjectPath } from "./object-key";
import { LOCAL_SIGN_PREFIX, LOCAL_UPLOAD_PREFIX, type ParsedSignedUrl } from "./signed-url";
import { signUrlToken, verifyUrlToken, type TokenCheck } from "./url-token";

// Zero-config storage: objects are files under {root}/{bucket}/{path}, and the app itself
// serves their signed URLs (Supabase's URL form, our own HMAC tokens). A stored object's
// type is the one its extension names: the server chose both from the verified bytes.
// (The turbopackIgnore hints keep the bundler from tracing DATA_DIR into the build.)

export type LocalDriver = StorageDriver & {
  readonly name: "local";
  /** The object as a byte stream, for the signed-URL route; null when it does not exist. */
  openObject(ref: ObjectRef): Promise<{ stream: ReadableStream<Uint8Array>; size: number; contentType: string } | null>;
  verifyToken(token: string | null, expected: ObjectRef & { op: "get" | "put" }): TokenCheck;
};

const encodePath = (objectPath: string) => objectPath.split("/").map(encodeURIComponent).join("/");

// Long: a driver is the object of its methods, made by one factory over one folder.
export function createLocalDriver({ root, bucket }: { root: string; bucket: string }): LocalDriver {
  const fileOf = (ref: ObjectRef): string | null => {
    if (!isValidObjectPath(ref.path) || !isValidObjectPath(ref.bucket) || ref.bucket.includes("/")) return null;
    return path.join(/*turbopackIgnore: true*/ root, ref.bucket, ...ref.path.split("/"));
  };
  const contentTypeOf = (ref: ObjectRef) => imageTypeForPath(ref.path) ?? documentTypeForPath(ref.path) ?? "application/octet-stream";

  async function sizeOf(file: string): Promise<number | null> {
    try {
      const info = await stat(/*turbopackIgnore: true*/ file);
      return info.isFile() ? info.size : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return null;
      throw err;
    }
  }

  return {
    name: "local",
    bucket,

    async putObject(ref) {
      const file = fileOf(ref);
      if (!file) throw new Error(`invalid object path ${ref.bucket}/${ref.path}`);
      await mkdir(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
      // Written aside and renamed, so a reader never sees half an image.
      const temp = `${file}.${randomBytes(6).toString("hex")}.partial`;
      try {
        await writeFile(/*turbopackIgnore: true*/ temp, ref.body);
        await rename(/*turbopackIgnore: true*/ temp, file);
      } catch (err) {
        await rm(/*turbopackIgnore: true*/ temp, { force: true });
        throw err;
      }
    },

    async headObject(ref) {
      const file = fileOf(ref);
      const size = file ? await sizeOf(file) : null;
      return size === null ? null : { size, contentType: contentTypeOf(ref) };
    },

    async getObject(ref) {
      const file = fileOf(ref);
      if (!file || (await sizeOf(file)) === null) return null;
      return { contentType: contentTypeOf(ref), data: new Uint8Array(await readFile(/*turbopackIgnore: true*/ file)) };
    },

    async deleteObject(ref) {
      const file = fileOf(ref);
      if (file) await rm(/*turbopackIgnore: true*/ file, { force: true });
    },

    async openObject(ref) {
      const file = fileOf(ref);
      const size = file ? await sizeOf(file) : null;
      if (!file || size === null) return null;
      return { stream: Readable.toWeb(createReadStream(/*turbopackIgnore: true*/ file)) as ReadableStream<Uint8Array>, size, contentType: contentTypeOf(ref) };
    },

    async signGetUrl({ bucket: b, path: p, expiresAt, origin }) {
      const token = signUrlToken({ bucket: b, path: p, op: "get", expiresAt });
      return `${origin}${LOCAL_SIGN_PREFIX}${encodeURIComponent(b)}/${encodePath(p)}?token=${token}`;
    },

    async presignPut({ bucket: b, path: p, contentType, contentLength, expiresAt, origin }) {
      const token = signUrlToken({ bucket: b, path: p, op: "put", expiresAt, contentType, contentLength });
      return { url: `${origin}${LOCAL_UPLOAD_PREFIX}${encodeURIComponent(b)}/${encodePath(p)}?token=${token}`, headers: { "content-type": contentType } };
    },

    async checkSignedGetUrl(parsed: ParsedSignedUrl, now?: number): Promise<SignatureCheck> {
      if (parsed.kind !== "local") return { ok: false, reason: "signature" };
      const check = verifyUrlToken(parsed.token, { bucket: parsed.bucket, path: parsed.path, op: "get" }, now);
      if (check.ok) return { ok: true };
      return { ok: false, reason: check.reason === "expired" ? "expired" : "signature" };
    },

    verifyToken(token, expected) {
      return verifyUrlToken(token, expected, Date.now());
    },
  };
}
