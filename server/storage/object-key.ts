import { randomBytes, randomUUID } from "node:crypto";
import { DOCUMENT_TYPES, type DocumentMimeType } from "../files/document-type";
import { IMAGE_TYPES, type ImageMimeType } from "./image-type";

// Object keys are chosen by the server, never by the client:
//   agent-inputs/{userId}/{threadId or a fresh upload id}/{random}.{ext}
// so nothing a caller sends can name, overwrite or guess another object.

// Anything outside this alphabet (or a `.`/`..` segment) is not one of our keys; refusing
// it also keeps local paths inside the storage folder.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export function isValidObjectPath(objectPath: string): boolean {
  return objectPath.length <= 512 && objectPath.split("/").every((s) => SEGMENT.test(s) && s !== "." && s !== "..");
}

export function newAttachmentKey({ userId, threadId, mimeType }: { userId: string; threadId: string | null; mimeType: ImageMimeType | DocumentMimeType }): string {
  const ext = mimeType in IMAGE_TYPES ? IMAGE_TYPES[mimeType as ImageMimeType] : DOCUMENT_TYPES[mimeType as DocumentMimeType].ext;
  return `agent-inputs/${userId}/${threadId ?? randomUUID()}/${randomBytes(16).toString("hex")}.${ext}`;
}
