// The only files users may attach: four raster image formats, recognised by their first
// bytes. A declared Content-Type is a claim; the magic bytes are the evidence.

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export const IMAGE_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
} as const;

export type ImageMimeType = keyof typeof IMAGE_TYPES;

export const ALLOWED_IMAGES_TEXT = "PNG, JPEG, GIF or WebP";

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

/** The image type the bytes actually are, or null when they are none of the allowed ones. */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return null;
}

/**
 * A declared MIME type as one of ours: parameters and case are ignored, and the common
 * non-standard `image/jpg` counts as JPEG. Null for anything else.
 */
export function normalizeImageType(declared: string | null | undefined): ImageMimeType | null {
  const base = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  const type = base === "image/jpg" || base === "image/pjpeg" ? "image/jpeg" : base;
  return type in IMAGE_TYPES ? (type as ImageMimeType) : null;
}

/** The MIME type our key scheme implies for a stored object's extension. */
export function imageTypeForPath(path: string): ImageMimeType | null {
  const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
  const found = Object.entries(IMAGE_TYPES).find(([, e]) => e === ext);
  return found ? (found[0] as ImageMimeType) : null;
}
