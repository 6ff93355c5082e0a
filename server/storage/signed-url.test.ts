import { describe, expect, it } from "vitest";
import { parseSignedUrl, type StorageTargets } from "./signed-url";

const local: StorageTargets = { origins: ["https://dispatch.example.com", "http://127.0.0.1:3000"] };
const s3: StorageTargets = { origins: ["https://dispatch.example.com"], s3: { endpoint: new URL("https://s3.eu-west-1.example.net"), bucket: "uploads" } };
const amz = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260315T100000Z&X-Amz-Expires=900&X-Amz-Signature=abc&X-Amz-SignedHeaders=host";

describe("parseSignedUrl", () => {
  it("reads bucket and path from our Supabase-form URLs, on the public origin or the request's", () => {
    const url = "https://dispatch.example.com/storage/v1/object/sign/agent-files/agent-inputs/u/t/r/img.jpg?token=xyz";
    expect(parseSignedUrl(url, local)).toMatchObject({ ok: true, kind: "local", bucket: "agent-files", path: "agent-inputs/u/t/r/img.jpg", token: "xyz" });
    expect(parseSignedUrl("http://127.0.0.1:3000/storage/v1/object/sign/agent-files/a/b.png?token=t", local)).toMatchObject({
      ok: true,
      bucket: "agent-files",
      path: "a/b.png",
    });
  });

  it("refuses the same form on any other host, such as a Supabase project", () => {
    expect(parseSignedUrl("https://xxx.supabase.co/storage/v1/object/sign/agent-files/a/b.png?token=t", local)).toEqual({ ok: false, reason: "unknown-host" });
    expect(parseSignedUrl("http://127.0.0.1:3001/storage/v1/object/sign/agent-files/a/b.png?token=t", local)).toEqual({ ok: false, reason: "unknown-host" });
    expect(parseSignedUrl("https://storage.example.com/agent-inputs/user-123/image.png?signature=xxx", local)).toEqual({ ok: false, reason: "unknown-host" });
  });

  it("refuses data: URLs, non-http schemes, credentials in the URL and incomplete forms", () => {
    expect(parseSignedUrl("data:image/png;base64,iVBORw0KGgo=", local)).toEqual({ ok: false, reason: "data-url" });
    expect(parseSignedUrl("  DATA:image/png;base64,AA", local)).toEqual({ ok: false, reason: "data-url" });
    expect(parseSignedUrl("file:///etc/passwd", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("not a url", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("https://u:p@dispatch.example.com/storage/v1/object/sign/agent-files/a.png?token=t", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("https://dispatch.example.com/storage/v1/object/sign/agent-files/a/b.png", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("https://dispatch.example.com/storage/v1/object/sign/agent-files?token=t", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("https://dispatch.example.com/api/v1/me?token=t", local)).toEqual({ ok: false, reason: "invalid" });
    expect(parseSignedUrl("https://dispatch.example.com/storage/v1/object/sign/agent-files/a/%E0%A4%A.png?token=t", local)).toEqual({ ok: false, reason: "invalid" });
  });

  it("reads path-style and virtual-host-style URLs of the configured S3 endpoint", () => {
    expect(parseSignedUrl(`https://s3.eu-west-1.example.net/uploads/agent-inputs/u/t/r.png?${amz}`, s3)).toMatchObject({
      ok: true,
      kind: "s3",
      style: "path",
      bucket: "uploads",
      path: "agent-inputs/u/t/r.png",
    });
    expect(parseSignedUrl(`https://uploads.s3.eu-west-1.example.net/agent-inputs/u/t/r.png?${amz}`, s3)).toMatchObject({
      ok: true,
      kind: "s3",
      style: "virtual-host",
      bucket: "uploads",
      path: "agent-inputs/u/t/r.png",
    });
  });

  it("refuses other hosts, other buckets' subdomains, other schemes and unsigned S3 URLs", () => {
    expect(parseSignedUrl(`https://other.s3.eu-west-1.example.net/a.png?${amz}`, s3)).toEqual({ ok: false, reason: "unknown-host" });
    expect(parseSignedUrl(`https://s3.us-east-1.amazonaws.com/uploads/a.png?${amz}`, s3)).toEqual({ ok: false, reason: "unknown-host" });
    expect(parseSignedUrl(`http://s3.eu-west-1.example.net/uploads/a.png?${amz}`, s3)).toEqual({ ok: false, reason: "unknown-host" });
    expect(parseSignedUrl("https://s3.eu-west-1.example.net/uploads/a.png", s3)).toEqual({ ok: false, reason: "invalid" });
  });
});
