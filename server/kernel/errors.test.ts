import { describe, expect, it } from "vitest";
import { AppError, errorBody, isDatabaseUnavailable, retryAfter, toAppError } from "./errors";

describe("toAppError", () => {
  it("keeps AppErrors and their status", () => {
    const err = new AppError("CONFLICT", "Thread is busy");
    expect(toAppError(err)).toBe(err);
    expect(err.status).toBe(409);
    expect(errorBody(err)).toEqual({ error: { code: "CONFLICT", message: "Thread is busy" } });
  });

  it("reports an unreachable database as 503, never as the caller's fault", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const wrapped = new Error("query failed", { cause: refused });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    const mapped = toAppError(wrapped);
    expect(mapped.code).toBe("SERVICE_UNAVAILABLE");
    expect(mapped.status).toBe(503);
  });

  it("reports a database Unix socket that is gone as 503, but not any missing file", () => {
    const gone = Object.assign(new Error("connect ENOENT /data/pg/.s.PGSQL.54329"), { code: "ENOENT", syscall: "connect" });
    expect(toAppError(new Error("query failed", { cause: gone })).status).toBe(503);
    const missingFile = Object.assign(new Error("ENOENT: no such file or directory, open 'x'"), { code: "ENOENT", syscall: "open" });
    expect(isDatabaseUnavailable(missingFile)).toBe(false);
    expect(toAppError(missingFile).status).toBe(500);
  });

  it.each([
    ["a pool that gave up waiting for a connection", new Error("timeout exceeded when trying to connect")],
    ["a statement the client gave up on (a frozen server)", new Error("Query read timeout")],
    ["a statement PostgreSQL cancelled on its timeout", Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" })],
    ["a server starting up", Object.assign(new Error("the database system is starting up"), { code: "57P03" })],
    ["a connection failure", Object.assign(new Error("connection failure"), { code: "08006" })],
    ["too many connections", Object.assign(new Error("sorry, too many clients already"), { code: "53300" })],
  ])("reports %s as 503 with a Retry-After and no driver text", (_name, err) => {
    const mapped = toAppError(err);
    expect(mapped.status).toBe(503);
    expect(mapped.message).toBe("The database is unavailable. Try again shortly.");
    expect(retryAfter(mapped)).toEqual({ "retry-after": expect.stringMatching(/^\d+$/) });
  });

  it.each(["22021", "22P05", "22P02", "54001"])("reports input PostgreSQL refused (%s) as the caller's 400", (code) => {
    expect(toAppError(Object.assign(new Error("invalid byte sequence"), { code })).status).toBe(400);
  });

  it("hides unknown faults behind a 500 without their message", () => {
    const mapped = toAppError(new Error("secret internal detail"));
    expect(mapped.status).toBe(500);
    expect(mapped.message).not.toContain("secret");
  });
});
