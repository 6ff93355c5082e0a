import { describe, expect, it } from "vitest";
import { alphaWebpBytes, gifBytes, jpegBytes, losslessWebpBytes, pngBytes, progressiveJpegBytes, textBytes, webpBytes } from "@/test/images";
import { imageTypeForPath, normalizeImageType, sniffImageType } from "./image-type";

describe("image types", () => {
  it("recognises PNG, JPEG, GIF and WebP by their bytes, and nothing else", () => {
    expect(sniffImageType(pngBytes())).toBe("image/png");
    expect(sniffImageType(jpegBytes())).toBe("image/jpeg");
    expect(sniffImageType(gifBytes())).toBe("image/gif");
    expect(sniffImageType(webpBytes())).toBe("image/webp");
    expect(sniffImageType(textBytes())).toBeNull();
    expect(sniffImageType(new Uint8Array())).toBeNull();
    // A RIFF container that is not WebP (a WAV file) is not an image.
    expect(sniffImageType(new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt "))).toBeNull();
    expect(sniffImageType(pngBytes().subarray(0, 7))).toBeNull();
  });

  it("recognises every flavour of each format that real encoders write", () => {
    expect(sniffImageType(progressiveJpegBytes())).toBe("image/jpeg");
    expect(sniffImageType(losslessWebpBytes())).toBe("image/webp");
    expect(sniffImageType(alphaWebpBytes())).toBe("image/webp");
  });

  it("refuses a signature without the header a decoder needs", () => {
    const bytes = (...b: number[]) => new Uint8Array(b);
    const text = (t: string) => new TextEncoder().encode(t);
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBeNull();
    // SOI, a JFIF segment, EOI: well-formed segments, but no frame.
    expect(sniffImageType(bytes(0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xff, 0xd9))).toBeNull();
    expect(sniffImageType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a))).toBeNull();
    expect(sniffImageType(text("GIF89a"))).toBeNull();
    expect(sniffImageType(text("RIFF\x1c\0\0\0WEBPVP8 \x10\0\0\0"))).toBeNull();
  });

  it("refuses every image cut short inside its header", () => {
    const headerEnds: [() => Uint8Array, number][] = [
      [pngBytes, 33],
      [jpegBytes, frameEnd(jpegBytes())],
      [progressiveJpegBytes, frameEnd(progressiveJpegBytes())],
      [gifBytes, 20],
    ];
    for (const [image, end] of headerEnds) {
      for (let n = 0; n < end; n++) expect(sniffImageType(image().subarray(0, n)), `${image.name} cut at ${n}`).toBeNull();
    }
    // A WebP's RIFF header states its length: any cut is a truncated file.
    for (const image of [webpBytes, losslessWebpBytes, alphaWebpBytes]) {
      const whole = image();
      for (let n = 0; n < whole.length; n++) expect(sniffImageType(whole.subarray(0, n)), `${image.name} cut at ${n}`).toBeNull();
    }
  });

  it("refuses headers with impossible values", () => {
    const forged = (image: () => Uint8Array, edit: (b: Uint8Array) => void) => {
      const b = image();
      edit(b);
      return sniffImageType(b);
    };
    const sof = (b: Uint8Array) => frameEnd(b) - 19; // marker, then a three-component frame segment of 17 bytes
    expect(forged(pngBytes, (b) => b.set([0, 0, 0, 0], 16))).toBeNull(); // width 0
    expect(forged(pngBytes, (b) => (b[24] = 4))).toBeNull(); // RGB has no 4-bit depth
    expect(forged(pngBytes, (b) => b.set([0, 1, 0, 0], 20))).toBeNull(); // 65,536 rows
    expect(forged(jpegBytes, (b) => b.set([0, 0], sof(b) + 5))).toBeNull(); // height 0
    expect(forged(jpegBytes, (b) => (b[sof(b) + 9] = 7))).toBeNull(); // 7 components
    expect(forged(jpegBytes, (b) => (b[sof(b) + 1] = 0xda))).toBeNull(); // a scan before any frame
    expect(forged(gifBytes, (b) => b.set([0, 0], 6))).toBeNull(); // width 0
    expect(forged(gifBytes, (b) => (b[19] = 0x00))).toBeNull(); // no block after the colour table
    expect(forged(webpBytes, (b) => (b[23] = 0))).toBeNull(); // no VP8 start code
    expect(forged(webpBytes, (b) => (b[20]! |= 1))).toBeNull(); // not a key frame
    expect(forged(losslessWebpBytes, (b) => (b[20] = 0x2e))).toBeNull(); // no VP8L signature
    expect(forged(webpBytes, (b) => b.set(new TextEncoder().encode("VP9 "), 12))).toBeNull();
  });

  it("accepts declared types case- and parameter-insensitively, and only the four", () => {
    expect(normalizeImageType("IMAGE/PNG")).toBe("image/png");
    expect(normalizeImageType("image/jpg")).toBe("image/jpeg");
    expect(normalizeImageType("image/webp; charset=binary")).toBe("image/webp");
    expect(normalizeImageType("image/svg+xml")).toBeNull();
    expect(normalizeImageType("text/plain")).toBeNull();
    expect(normalizeImageType(null)).toBeNull();
  });

  it("maps our keys' extensions back to their types", () => {
    expect(imageTypeForPath("agent-inputs/u/t/abc.jpg")).toBe("image/jpeg");
    expect(imageTypeForPath("agent-inputs/u/t/abc.webp")).toBe("image/webp");
    expect(imageTypeForPath("agent-inputs/u/t/abc.exe")).toBeNull();
  });
});

/** Where a JPEG's frame header (SOFn) ends, found by walking its segments. */
function frameEnd(jpeg: Uint8Array): number {
  let at = 2;
  for (;;) {
    const marker = jpeg[at + 1]!;
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    if (marker === 0xc0 || marker === 0xc2) return at + 2 + length;
    at += 2 + length;
  }
}
