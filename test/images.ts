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

/** The start of a JPEG file: enough for its magic bytes. */
export function jpegBytes(): Uint8Array {
  return new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9]);
}

export function gifBytes(): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from("GIF89a", "ascii"), Buffer.from([1, 0, 1, 0, 0, 0, 0, 0x3b])]));
}

export function webpBytes(): Uint8Array {
  const body = Buffer.from("WEBPVP8 ", "ascii");
  const size = Buffer.alloc(4);
  size.writeUInt32LE(body.length);
  return new Uint8Array(Buffer.concat([Buffer.from("RIFF", "ascii"), size, body]));
}

/** Text that claims nothing: what a renamed non-image upload looks like. */
export function textBytes(): Uint8Array {
  return new TextEncoder().encode("#!/bin/sh\necho this is not an image\n");
}
