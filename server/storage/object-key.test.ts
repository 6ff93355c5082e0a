import { describe, expect, it } from "vitest";
import { isValidObjectPath, newAttachmentKey } from "./object-key";

describe("object keys", () => {
  it("are chosen by the server: user, thread (or a fresh upload id), random name, extension of the verified type", () => {
    const user = "6b1f3c1e-0000-4000-8000-000000000001";
    const thread = "6b1f3c1e-0000-4000-8000-000000000002";
    expect(newAttachmentKey({ userId: user, threadId: thread, mimeType: "image/jpeg" })).toMatch(new RegExp(`^agent-inputs/${user}/${thread}/[0-9a-f]{32}\\.jpg$`));
    const a = newAttachmentKey({ userId: user, threadId: null, mimeType: "image/png" });
    const b = newAttachmentKey({ userId: user, threadId: null, mimeType: "image/png" });
    expect(a).toMatch(new RegExp(`^agent-inputs/${user}/[0-9a-f-]{36}/[0-9a-f]{32}\\.png$`));
    expect(a.split("/")[2]).not.toBe(b.split("/")[2]);
    expect(isValidObjectPath(a)).toBe(true);
  });

  it("refuse anything that could leave the storage folder or is not one of ours", () => {
    for (const bad of ["../etc/passwd", "a/../../b.png", "a/./b.png", "a//b.png", "/a.png", "a/b.png/", "a\\b.png", "a/b c.png", "a/%2e%2e/b.png", ".hidden", ""]) {
      expect(isValidObjectPath(bad), bad).toBe(false);
    }
  });
});
