import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { getPool } from "@/server/db";
import { callerAs, userAndAdmin } from "@/test/trpc-callers";
import { createTestUser } from "@/test/helpers";
import { registerAgent, runnersOverview } from "../service";
import { unsealAgentHeaders } from "./register";

vi.mock("@/server/auth/session", () => ({ getSessionPrincipal: async () => null }));

// Registering an AG-UI agent: the rules a runner endpoint follows (where it may be, secrets at
// rest), through the service the CLI uses and the admin tRPC API the console uses.

const name = () => `agent-${randomUUID().slice(0, 8)}`;
const url = () => `http://127.0.0.1:9/${randomUUID().slice(0, 8)}`;

async function endpointRow(baseUrl: string) {
  const { rows } = await getPool().query<{ kind: string; secret_sealed: string; secret_hash: string; options: unknown }>(
    `select kind, secret_sealed, secret_hash, options from runner_endpoints where base_url = $1`,
    [baseUrl],
  );
  return rows[0];
}

describe("registering an AG-UI agent", () => {
  it("keeps its headers sealed, names its runner, and lists it with its kind", async () => {
    const at = url();
    const n = name();
    const registered = await registerAgent({ url: at, name: n, headers: { "X-Api-Key": "agent-secret-value" }, stallSeconds: 5 });
    expect(registered).toMatchObject({ url: at, runnerId: `plugin:ag-ui/${n}/agent`, options: { connect_seconds: 30, stall_seconds: 5 } });
    const row = await endpointRow(at);
    expect(row).toMatchObject({ kind: "ag-ui", options: { connect_seconds: 30, stall_seconds: 5 } });
    expect(row!.secret_sealed).not.toContain("agent-secret-value");
    expect(unsealAgentHeaders(row!.secret_sealed)).toEqual({ "x-api-key": "agent-secret-value" });
    // Never a runner secret's hash (hex), so the agent's endpoint cannot sign in to the host API.
    expect(row!.secret_hash).toMatch(/^ag-ui:/);
    const overview = await runnersOverview();
    expect(overview.endpoints.find((e) => e.baseUrl === at)).toMatchObject({ kind: "ag-ui", status: "ok" });
    expect(overview.runners.find((r) => r.id === registered.runnerId)).toMatchObject({ endpointId: registered.endpointId, available: true });
    expect(JSON.stringify(overview)).not.toContain("agent-secret-value");

    // Registering the URL again updates it in place.
    const again = await registerAgent({ url: at, name: n, headers: {} });
    expect(again.endpointId).toBe(registered.endpointId);
    expect(unsealAgentHeaders((await endpointRow(at))!.secret_sealed)).toEqual({});
  });

  it.each([
    [{ url: "http://10.1.2.3/agent" }, "not on a public address"],
    [{ url: "ftp://127.0.0.1/agent" }, "must use http or https"],
    [{ url: "http://127.0.0.1:9/agent?x=1" }, "must not contain a query"],
    [{ headers: { "Content-Type": "text/plain" } }, "is set by Dispatch"],
    [{ headers: { "X-Bad": "a\r\nInjected: 1" } }, "line break"],
    [{ name: "no spaces allowed" }, "Invalid agent"],
  ])("refuses %j", async (change, message) => {
    await expect(registerAgent({ url: url(), name: name(), ...change })).rejects.toThrow(message);
  });

  it("takes no runner id that another endpoint serves", async () => {
    const n = name();
    await registerAgent({ url: url(), name: n });
    await expect(registerAgent({ url: url(), name: n })).rejects.toThrow(/belongs to another endpoint/);
  });

  it("is the admin's, through tRPC", async () => {
    const { user, admin } = await userAndAdmin();
    const n = name();
    await expect(admin.runners.registerAgent({ url: url(), name: n })).resolves.toMatchObject({ runnerId: `plugin:ag-ui/${n}/agent` });
    await expect(callerAs(user).runners.registerAgent({ url: url(), name: name() })).rejects.toThrow();
    await expect(callerAs(await createTestUser()).runners.overview()).rejects.toThrow();
  });
});
