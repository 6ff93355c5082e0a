import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { describe, expect, it } from "vitest";
import { createS3Driver, type S3Config } from "./s3-driver";
import { parseSignedUrl, type ParsedSignedUrl } from "./signed-url";

// Signing is offline, so these need no server: the driver's checks against URLs that
// S3 clients built, in both addressing styles.
const config: S3Config = {
  bucket: "agent-files-test",
  region: "us-east-1",
  endpoint: "http://localhost:9000",
  accessKeyId: "AKIDTEST",
  secretAccessKey: "secret-test-key",
  forcePathStyle: true,
};
const driver = createS3Driver(config);
const key = "agent-inputs/u/t/abc.png";

function clientWith(overrides: Partial<{ forcePathStyle: boolean; secretAccessKey: string }> = {}) {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: overrides.forcePathStyle ?? true,
    credentials: { accessKeyId: config.accessKeyId!, secretAccessKey: overrides.secretAccessKey ?? config.secretAccessKey! },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

function parsed(url: string): ParsedSignedUrl {
  const result = parseSignedUrl(url, { origins: [], s3: driver.target });
  if (!result.ok) throw new Error(`not parsed: ${result.reason}`);
  return result;
}

describe("S3 signed URL checks", () => {
  it("accept the driver's own GET URLs, which carry no checksum parameters", async () => {
    const url = await driver.signGetUrl({ bucket: config.bucket, path: key, expiresAt: new Date(Date.now() + 900_000), origin: "" });
    expect(url).not.toMatch(/x-amz-checksum/i);
    expect(parsed(url)).toMatchObject({ kind: "s3", style: "path", bucket: config.bucket, path: key });
    expect(await driver.checkSignedGetUrl(parsed(url))).toEqual({ ok: true });
  });

  it("accept a virtual-host-style URL for the same endpoint", async () => {
    const url = await getSignedUrl(clientWith({ forcePathStyle: false }), new GetObjectCommand({ Bucket: config.bucket, Key: key }), { expiresIn: 600 });
    expect(new URL(url).host).toBe("agent-files-test.localhost:9000");
    expect(await driver.checkSignedGetUrl(parsed(url))).toEqual({ ok: true });
  });

  it("refuse a changed key, a changed signature, a longer expiry or another secret", async () => {
    const url = await driver.signGetUrl({ bucket: config.bucket, path: key, expiresAt: new Date(Date.now() + 900_000), origin: "" });
    const otherKey = url.replace("abc.png", "abd.png");
    const sig = new URL(url).searchParams.get("X-Amz-Signature")!;
    const otherSig = url.replace(sig, `${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`);
    const longer = url.replace(/X-Amz-Expires=\d+/, "X-Amz-Expires=3600");
    const foreign = await getSignedUrl(clientWith({ secretAccessKey: "someone-else" }), new GetObjectCommand({ Bucket: config.bucket, Key: key }), { expiresIn: 600 });
    for (const bad of [otherKey, otherSig, longer, foreign]) {
      expect(await driver.checkSignedGetUrl(parsed(bad))).toEqual({ ok: false, reason: "signature" });
    }
  });

  it("report an authentic URL past its expiry as expired", async () => {
    const url = await getSignedUrl(clientWith(), new GetObjectCommand({ Bucket: config.bucket, Key: key }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 3_600_000),
    });
    expect(await driver.checkSignedGetUrl(parsed(url))).toEqual({ ok: false, reason: "expired" });
  });

  it("sign Content-Type and Content-Length into presigned PUTs, without checksum parameters", async () => {
    const put = await driver.presignPut({ bucket: config.bucket, path: key, contentType: "image/png", contentLength: 1234, expiresAt: new Date(Date.now() + 900_000), origin: "" });
    expect(put.url).not.toMatch(/x-amz-checksum|x-amz-sdk-checksum/i);
    expect(new URL(put.url).searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(put.headers).toEqual({ "content-type": "image/png" });
  });
});
