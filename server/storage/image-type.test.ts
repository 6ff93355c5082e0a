import { describe, expect, it } from "vitest";
import { gifBytes, jpegBytes, pngBytes, textBytes, webpBytes } from "@/test/images";
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
