import type { ParsedSignedUrl } from "./signed-url";

// What every storage driver offers; driver.ts picks one from the environment.

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
