// The only files users may attach: four raster image formats, recognised by their headers.
// A declared Content-Type is a claim; a header a decoder could open is the evidence.

export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

export const IMAGE_TYPES = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
} as const;

export type ImageMimeType = keyof typeof IMAGE_TYPES;

export const ALLOWED_IMAGES_TEXT = "PNG, JPEG, GIF or WebP";

// The largest width or height accepted: the limit of JPEG, GIF and WebP's own header fields,
// applied to PNG too, so a few header bytes cannot announce an image no decoder would open.
const MAX_DIMENSION = 65_535;

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
const u32le = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

const saneSize = (width: number, height: number) => width >= 1 && height >= 1 && width <= MAX_DIMENSION && height <= MAX_DIMENSION;

// PNG: the signature, then a complete IHDR chunk (always first) with a valid colour type and
// bit depth for it.
const PNG_DEPTHS: Record<number, readonly number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
function isPng(b: Uint8Array): boolean {
  if (!startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) || b.length < 8 + 8 + 13 + 4) return false;
  if (u32be(b, 8) !== 13 || !startsWith(b, ascii("IHDR"), 12)) return false;
  const [depth, colour, compression, filter, interlace] = [b[24]!, b[25]!, b[26]!, b[27]!, b[28]!];
  return saneSize(u32be(b, 16), u32be(b, 20)) && (PNG_DEPTHS[colour]?.includes(depth) ?? false) && compression === 0 && filter === 0 && interlace <= 1;
}

// JPEG: SOI, then whole marker segments up to a start-of-frame that states the precision, a
// non-zero size and its components. A scan, an end or a second SOI before any frame is not an image.
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
function isJpeg(b: Uint8Array): boolean {
  if (!startsWith(b, [0xff, 0xd8])) return false;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return false;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // a marker with no segment
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9 || marker === 0xda || marker === 0x00) return false;
    const length = u16be(b, at + 2);
    if (length < 2 || at + 2 + length > b.length) return false;
    if (isStartOfFrame(marker)) {
      const components = b[at + 9];
      const precision = b[at + 4]!;
      return (
        length >= 8 &&
        components !== undefined &&
        components >= 1 &&
        components <= 4 &&
        length === 8 + 3 * components &&
        (precision === 8 || precision === 12 || precision === 16) &&
        saneSize(u16be(b, at + 7), u16be(b, at + 5))
      );
    }
    at += 2 + length;
  }
  return false;
}

// GIF: the header and the logical screen descriptor with a non-zero size, its global colour
// table when the descriptor announces one, then a block (extension, image or trailer).
function isGif(b: Uint8Array): boolean {
  if (!(startsWith(b, ascii("GIF87a")) || startsWith(b, ascii("GIF89a"))) || b.length < 13) return false;
  if (!saneSize(u16le(b, 6), u16le(b, 8))) return false;
  const packed = b[10]!;
  const next = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0);
  return next < b.length && [0x21, 0x2c, 0x3b].includes(b[next]!);
}

// WebP: a RIFF container no longer than the file, whose first chunk is a whole VP8 key frame
// header, VP8L header or VP8X header, each with a non-zero size.
function isWebp(b: Uint8Array): boolean {
  if (!startsWith(b, ascii("RIFF")) || !startsWith(b, ascii("WEBP"), 8) || b.length < 20) return false;
  const riffSize = u32le(b, 4);
  const chunkSize = u32le(b, 16);
  if (riffSize + 8 > b.length || 4 + 8 + chunkSize > riffSize) return false;
  if (startsWith(b, ascii("VP8 "), 12)) {
    const keyFrame = (b[20]! & 0x01) === 0;
    return chunkSize >= 10 && keyFrame && startsWith(b, [0x9d, 0x01, 0x2a], 23) && saneSize(u16le(b, 26) & 0x3fff, u16le(b, 28) & 0x3fff);
  }
  if (startsWith(b, ascii("VP8L"), 12)) {
    const bits = u32le(b, 21);
    const width = (bits & 0x3fff) + 1;
    const height = ((bits >>> 14) & 0x3fff) + 1;
    const version = bits >>> 29;
    return chunkSize >= 5 && b[20] === 0x2f && version === 0 && saneSize(width, height);
  }
  if (startsWith(b, ascii("VP8X"), 12)) {
    return chunkSize >= 10 && saneSize(u24le(b, 24) + 1, u24le(b, 27) + 1);
  }
  return false;
}

/**
 * The image type the bytes actually are, or null when they are none of the allowed ones. A
 * signature alone is not enough: the header a decoder needs (format, size) must be there and valid.
 */
export function sniffImageType(bytes: Uint8Array): ImageMimeType | null {
  if (isPng(bytes)) return "image/png";
  if (isJpeg(bytes)) return "image/jpeg";
  if (isGif(bytes)) return "image/gif";
  if (isWebp(bytes)) return "image/webp";
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
