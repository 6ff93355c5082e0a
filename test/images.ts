import { deflateSync } from "node:zlib";

// Small real images for attachment tests, built in memory.

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 1×1 RGB PNG whose pixel colour makes each image's bytes distinct. */
export function pngBytes(seed = 0): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const pixel = Buffer.from([0, seed & 0xff, (seed >> 8) & 0xff, 0x80]);
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(pixel)),
      chunk("IEND", Buffer.alloc(0)),
    ]),
  );
}

// Real 2×3 images, encoded by sharp (libvips) and checked to decode with it; base64 keeps them
// exact. Each answers a fresh copy, so a test may change its bytes.
const real = (base64: string) => () => new Uint8Array(Buffer.from(base64, "base64"));

/** A baseline JPEG (no JFIF segment: its first segment is a quantisation table). */
export const jpegBytes = real(
  "/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAADAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAX/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAAAwb/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCSABTv/9k=",
);

/** A progressive JPEG (its frame is SOF2). */
export const progressiveJpegBytes = real(
  "/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wgARCAADAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAVAQEBAAAAAAAAAAAAAAAAAAADBf/aAAwDAQACEAMQAAABkB0//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABBQJ//8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAgBAwEBPwF//8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAgBAgEBPwF//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQAGPwJ//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPyF//9oADAMBAAIAAwAAABAP/8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAgBAwEBPxB//8QAFBEBAAAAAAAAAAAAAAAAAAAAAP/aAAgBAgEBPxB//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxB//9k=",
);

export const gifBytes = real("R0lGODlhAgADAIAAAExpccgePCH5BAUAAAAALAAAAAACAAMAAAICjF8AOw==");

/** A lossy WebP (a VP8 chunk). */
export const webpBytes = real("UklGRjQAAABXRUJQVlA4ICgAAABwAQCdASoCAAMAAsBMJaACdAFAAAD+7L2IwmknR/89M/9gf/JHwsAA");

/** A lossless WebP (a VP8L chunk). */
export const losslessWebpBytes = real("UklGRh4AAABXRUJQVlA4TBEAAAAvAYAAAAdQjyKXp/+BiOh/AAA=");

/** A WebP with transparency (a VP8X chunk, then ALPH and VP8). */
export const alphaWebpBytes = real(
  "UklGRlYAAABXRUJQVlA4WAoAAAAQAAAAAQAAAgAAQUxQSAcAAAAAgICAgICAAFZQOCAoAAAAcAEAnQEqAgADAALATCWgAnQBQAAA/uy9iMJpJ0f/PTP/YH/yR8LAAA==",
);

/** Text that claims nothing: what a renamed non-image upload looks like. */
export function textBytes(): Uint8Array {
  return new TextEncoder().encode("#!/bin/sh\necho this is not an image\n");
}
