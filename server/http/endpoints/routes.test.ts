import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { MAX_CONVERSATION_PAYLOAD_BYTES } from "../../protocols/ag-ui/run-input-rules";
import { FUNCTION_MAX_DURATION_SECONDS } from "../../runs/function-limits";
import type { Endpoint } from "../endpoint";
import { fastPathRoutes } from "./fast-path";

// Auth.js cannot load outside Next; nothing here authenticates.
vi.mock("../../auth/session", () => ({}));

const root = path.resolve(__dirname, "../../..");
// Auth.js's and tRPC's adapters answer for themselves (adapterRoute).
const ADAPTERS = new Set(["app/api/auth/[...nextauth]/route.ts", "app/api/trpc/[trpc]/route.ts"]);
// The routes that execute or stream a run, or run a scheduled duty: on Vercel they get the
// function time limit runs and streams are fitted into (server/runs/function-limits.ts).
const LONG_LIVED = new Set([
  "app/api/v1/agent/runs/route.ts",
  "app/api/v1/agent/run/route.ts",
  "app/api/v1/agent/runs/[runId]/events/route.ts",
  "app/api/v1/agent/process/route.ts",
  "app/api/v1/ag-ui/route.ts",
  "app/api/cron/[duty]/route.ts",
]);

function routeFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return routeFiles(rel);
    return entry.name === "route.ts" ? [rel] : [];
  });
}

describe("routes", () => {
  const files = [...routeFiles("app/api"), ...routeFiles("app/storage")].filter((f) => !ADAPTERS.has(f));

  it.each(files)("%s exports the handlers of endpoints served at its own path and methods", async (file) => {
    const source = readFileSync(path.join(root, file), "utf8");
    const imported = /^import \{ ([\w, ]+) \} from "@\/(server\/http\/endpoints\/[\w-]+)";$/m.exec(source);
    const exported = [...source.matchAll(/^export const (GET|POST|PUT|PATCH|DELETE) = (\w+)\.handler;$/gm)];
    expect(imported, "one import of endpoints").not.toBeNull();
    expect(exported.length, "`export const METHOD = endpoint.handler` lines").toBeGreaterThan(0);
    expect(exported.map((e) => e[2]).sort()).toEqual(imported![1]!.split(", ").sort());
    const endpoints = (await import(`@/${imported![2]}`)) as Record<string, Endpoint>;
    for (const [, method, name] of exported) {
      const endpoint = endpoints[name!]!;
      expect(endpoint.method).toBe(method);
      expect(endpoint.path).toBe(file.slice("app".length, -"/route.ts".length));
    }
    // Next reads segment config from the file's source, so it is a literal, checked here.
    const maxDuration = /^export const maxDuration = (\d+);$/m.exec(source);
    if (LONG_LIVED.has(file)) expect(Number(maxDuration?.[1]), "`export const maxDuration` = FUNCTION_MAX_DURATION_SECONDS").toBe(FUNCTION_MAX_DURATION_SECONDS);
    else expect(maxDuration, "no maxDuration: not a long-lived route").toBeNull();
    const lines = source.split("\n").filter((line) => line.trim() !== "");
    expect(lines.length, "nothing but the import and the exports").toBe(2 + exported.length + (maxDuration ? 1 : 0));
  });
});

describe("the node fast path", () => {
  it("serves the protocol calls API keys make most, with the conversation door's larger body limit", () => {
    expect(fastPathRoutes().map(({ method, path, maxBodyBytes }) => ({ method, path, maxBodyBytes }))).toEqual([
      { method: "POST", path: "/api/v1/agent/runs", maxBodyBytes: undefined },
      { method: "POST", path: "/api/v1/agent/run", maxBodyBytes: undefined },
      { method: "GET", path: "/api/v1/agent/runs/[runId]/events", maxBodyBytes: undefined },
      { method: "POST", path: "/api/v1/agent/process", maxBodyBytes: undefined },
      { method: "GET", path: "/api/v1/agent/history", maxBodyBytes: undefined },
      { method: "POST", path: "/api/v1/ag-ui", maxBodyBytes: MAX_CONVERSATION_PAYLOAD_BYTES },
    ]);
  });
});
