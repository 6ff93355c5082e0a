import { describe, expect, it } from "vitest";
import { AGENT_API_ERROR_CODES, HOST_API_ACTIONS, HOST_API_ACTION_NAMES, HOST_API_ERROR_STATUS, isHostApiAction } from "./host-api";

describe("host API wire schemas", () => {
  it("names every spec action once, as group/action", () => {
    expect(HOST_API_ACTION_NAMES).toHaveLength(22);
    for (const name of HOST_API_ACTION_NAMES) expect(name).toMatch(/^[a-z]+\/[a-z_]+$/);
    expect(isHostApiAction("models/invoke")).toBe(true);
    expect(isHostApiAction("__proto__")).toBe(false);
    expect(isHostApiAction("toString")).toBe(false);
  });

  it("maps every error code to a 4xx/5xx status and only rate_limited is retryable by nature", () => {
    for (const code of AGENT_API_ERROR_CODES) expect(HOST_API_ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    expect(HOST_API_ERROR_STATUS.rate_limited).toBe(429);
  });

  it("requires run_id on every action and refuses unknown keys", () => {
    for (const name of HOST_API_ACTION_NAMES) {
      const schema = HOST_API_ACTIONS[name].request;
      expect(schema.safeParse({}).success, name).toBe(false);
      expect(schema.safeParse({ run_id: "r", surprise: 1 }).success, name).toBe(false);
    }
  });

  it("fills the spec's defaults", () => {
    expect(HOST_API_ACTIONS["knowledge/retrieve"].request.parse({ run_id: "r", kb_id: "k", query_text: "q" })).toMatchObject({ top_k: 5 });
    expect(HOST_API_ACTIONS["history/page"].request.parse({ run_id: "r" })).toEqual({
      run_id: "r",
      limit: 50,
      direction: "backward",
      include_artifacts: false,
    });
    expect(HOST_API_ACTIONS["history/search"].request.parse({ run_id: "r", query: "x" })).toMatchObject({ top_k: 10 });
    expect(HOST_API_ACTIONS["events/page"].request.parse({ run_id: "r" })).toMatchObject({ limit: 50 });
    expect(HOST_API_ACTIONS["artifacts/read_range"].request.parse({ run_id: "r", artifact_id: "a" })).toMatchObject({ offset: 0, length: 65536 });
  });

  it("bounds what a runner can ask for", () => {
    expect(HOST_API_ACTIONS["artifacts/read_range"].request.safeParse({ run_id: "r", artifact_id: "a", length: 65537 }).success).toBe(false);
    expect(HOST_API_ACTIONS["state/set"].request.safeParse({ run_id: "r", scope: "conversation", key: "k" }).success).toBe(false);
    expect(HOST_API_ACTIONS["state/set"].request.safeParse({ run_id: "r", scope: "conversation", key: "k", value: null }).success).toBe(true);
    expect(HOST_API_ACTIONS["state/get"].request.safeParse({ run_id: "r", scope: "galaxy", key: "k" }).success).toBe(false);
    expect(HOST_API_ACTIONS["storage/set"].request.safeParse({ run_id: "r", area: "plugin", key: "k", value_base64: "not base64!" }).success).toBe(false);
    expect(HOST_API_ACTIONS["models/invoke"].request.safeParse({ run_id: "r", model_id: "m", messages: [] }).success).toBe(false);
  });
});
