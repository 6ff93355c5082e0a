import "server-only";
import path from "node:path";
import { env } from "../env";
import { createLocalDriver, type LocalDriver } from "./local-driver";
import { createS3Driver, type S3Driver } from "./s3-driver";
import type { ParsedSignedUrl } from "./signed-url";

// One interface over the two places attachments live: any S3-compatible service when
// S3_BUCKET is set, else the local disk under DATA_DIR (zero-config). Callers name objects
// by {bucket, path}; each driver turns that into its own signed URLs.

export const LOCAL_BUCKET = "agent-files";

export type ObjectRef = { bucket: string; path: string };
export type ObjectInfo = { size: number; contentType: string | null };
export type StoredBytes = { contentType: string | null; data: Uint8Array };
export type PresignedPut = { url: string; headers: Record<string, string> };

/** Why a signed URL that points at our storage is still not acceptable. */
export type SignatureCheck = { ok: true } | { ok: false; reason: "signature" | "expired" };

export interface StorageDriver {
  readonly name: "s3" | "local";
  /** The bucket new attachments go to. */
  readonly bucket: string;
  putObject(ref: ObjectRef & { body: Uint8Array; contentType: string }): Promise<void>;
  headObject(ref: ObjectRef): Promise<ObjectInfo | null>;
  getObject(ref: ObjectRef): Promise<StoredBytes | null>;
  /** Removes the object; one already gone is no error. */
  deleteObject(ref: ObjectRef): Promise<void>;
  /** A URL anyone holding it may GET until `expiresAt`; `origin` is the app's public origin. */
  signGetUrl(ref: ObjectRef & { expiresAt: Date; origin: string }): Promise<string>;
  /** A URL to PUT exactly this type and length of body to, until `expiresAt`. */
  presignPut(ref: ObjectRef & { contentType: string; contentLength: number; expiresAt: Date; origin: string }): Promise<PresignedPut>;
  /** Verifies a GET URL this driver signed (already parsed as one of its forms). */
  checkSignedGetUrl(parsed: ParsedSignedUrl, now?: number): Promise<SignatureCheck>;
}

let driver: LocalDriver | S3Driver | undefined;

/** The storage the environment configures, created once per process. */
export function getStorage(): LocalDriver | S3Driver {
  driver ??= env.S3_BUCKET
    ? createS3Driver({
        bucket: env.S3_BUCKET,
        region: env.S3_REGION,
        endpoint: env.S3_ENDPOINT,
        accessKeyId: env.S3_ACCESS_KEY_ID,
        secretAccessKey: env.S3_SECRET_ACCESS_KEY,
        forcePathStyle: env.S3_FORCE_PATH_STYLE ?? false,
      })
    : createLocalDriver({ root: path.resolve(env.DATA_DIR, "storage"), bucket: LOCAL_BUCKET });
  return driver;
}
