import { describe, expect, it } from "vitest";
import { isPublicAddress, mayConnectTo } from "./public-address";

describe("public addresses", () => {
  it("refuses this machine, unspecified, link-local, private and special-purpose addresses", () => {
    for (const address of ["127.0.0.1", "127.9.9.9", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "224.0.0.1", "255.255.255.255", "::", "::1", "fe80::1", "fd00::1", "fc00::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:a9fe:a9fe"]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("accepts public addresses, and nothing that is not an address", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(isPublicAddress(address), address).toBe(true);
    expect(isPublicAddress("example.com")).toBe(false);
    expect(isPublicAddress("")).toBe(false);
  });

  it("checks what a name resolves to, and lets an operator allow a host by name", async () => {
    expect(await mayConnectTo("localhost", [])).toBe(false);
    expect(await mayConnectTo("[::1]", [])).toBe(false);
    expect(await mayConnectTo("8.8.8.8", [])).toBe(true);
    expect(await mayConnectTo("no-such-host.invalid", [])).toBe(false);
    expect(await mayConnectTo("LocalHost", ["localhost"])).toBe(true);
    expect(await mayConnectTo("[::1]", ["::1"])).toBe(true);
    expect(await mayConnectTo("127.0.0.1", ["localhost"])).toBe(false);
  });
});
